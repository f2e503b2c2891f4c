-- What each model call cost by itself (its subagents' calls are rows of their own), for the
-- money ceilings: per day across sessions, and per delegation tree. No foreign key: money spent
-- stays spent when its session is deleted.
CREATE TABLE spend (
    message_id  TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL,
    root_id     TEXT NOT NULL,
    at          INTEGER NOT NULL,
    cost        REAL NOT NULL
);
CREATE INDEX spend_by_at ON spend(at);
CREATE INDEX spend_by_root ON spend(root_id);
