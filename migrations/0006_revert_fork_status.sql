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
