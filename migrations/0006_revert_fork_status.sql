-- A session's pending revert: where its hidden messages begin and the snapshot that undoes it.
CREATE TABLE session_revert (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    data        TEXT NOT NULL
);
-- Where a forked session came from: the session, the message it was forked before, its number.
CREATE TABLE session_fork (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    source_id   TEXT NOT NULL,
    message_id  TEXT,
    number      INTEGER NOT NULL
);
CREATE INDEX session_fork_by_source ON session_fork(source_id);
-- What each session is doing, written by the process running it, for other processes to read.
CREATE TABLE session_status (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    data        TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
-- A change number, bumped by every batch of message and part writes and stamped on the rows,
-- so another process (the control server) can read what changed since it last looked.
CREATE TABLE change_counter (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    value       INTEGER NOT NULL
);
INSERT INTO change_counter (id, value) VALUES (1, 0);
ALTER TABLE message ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE part ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX message_by_seq ON message(seq);
CREATE INDEX part_by_seq ON part(seq);
-- Root sessions in listing order straight from the index (no sort of the whole table).
CREATE INDEX session_roots_by_updated ON session(parent_id, updated_at DESC, id DESC);
