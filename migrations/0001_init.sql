-- Sessions, messages and their ordered parts. Ids are ULIDs, so ordering by id is ordering by time.
CREATE TABLE session (
    id          TEXT PRIMARY KEY,
    parent_id   TEXT REFERENCES session(id) ON DELETE CASCADE,
    cwd         TEXT NOT NULL,
    title       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX session_by_updated ON session(updated_at DESC, id DESC);
CREATE INDEX session_by_parent ON session(parent_id);

CREATE TABLE message (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    data        TEXT NOT NULL
);
CREATE INDEX message_by_session ON message(session_id, id);

CREATE TABLE part (
    id          TEXT PRIMARY KEY,
    message_id  TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    session_id  TEXT NOT NULL,
    data        TEXT NOT NULL
);
CREATE INDEX part_by_message ON part(message_id, id);
CREATE INDEX part_by_session ON part(session_id, id);
