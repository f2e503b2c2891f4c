-- The workspace's extra roots beside the session's cwd (ACP's additionalDirectories), as a
-- JSON array of absolute paths; NULL when it has none.
ALTER TABLE session ADD COLUMN extra_roots TEXT;
