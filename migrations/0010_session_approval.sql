-- The approval level a person chose for a session (ask, accept-edits, full-access, read-only).
ALTER TABLE session_choice ADD COLUMN approval TEXT;
