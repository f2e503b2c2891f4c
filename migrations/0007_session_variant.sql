-- The model variant (how hard the model thinks) a person chose for a session.
ALTER TABLE session_choice ADD COLUMN variant TEXT;
