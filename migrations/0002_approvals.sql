-- "Always allow" / "always reject" answers, per project; the newest answer for a pattern wins.
CREATE TABLE permission_approval (
    project     TEXT NOT NULL,
    permission  TEXT NOT NULL,
    pattern     TEXT NOT NULL,
    action      TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (project, permission, pattern)
);
