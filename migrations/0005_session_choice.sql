-- The mode (primary agent) and model a person chose for a session, restored when it reopens.
CREATE TABLE session_choice (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    agent       TEXT,
    model       TEXT
);
