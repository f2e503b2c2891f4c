-- Where an imported session came from: the agent, its own id for the session (importing the
-- same session again finds it here and makes no second copy), the file it was read from and
-- the version that wrote it.
CREATE TABLE import_origin (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    agent       TEXT NOT NULL,
    source_id   TEXT NOT NULL,
    source      TEXT NOT NULL,
    version     TEXT,
    imported_at INTEGER NOT NULL,
    UNIQUE (agent, source_id)
);
