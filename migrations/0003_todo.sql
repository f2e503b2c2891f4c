-- Each session's todo list, stored whole in one row so an update is one atomic write.
CREATE TABLE todo (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    data        TEXT NOT NULL,
    updated_at  INTEGER NOT NULL
);
