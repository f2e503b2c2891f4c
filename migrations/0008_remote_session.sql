-- The session an external ACP agent keeps for a child session, so a later task with the same
-- task id can load or resume it (in this process or the next).
CREATE TABLE remote_session (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    agent       TEXT NOT NULL,
    remote_id   TEXT NOT NULL
);
