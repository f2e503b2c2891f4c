-- A session's goal (`/goal`): its condition, status, budget and what it used, as one JSON
-- record; it outlives the process, so a paused or active goal is there after a restart.
CREATE TABLE session_goal (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    data        TEXT NOT NULL
);
