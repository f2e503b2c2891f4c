-- What the editor asked to append to the agent's system prompt for a session (ACP systemPrompt).
ALTER TABLE session_choice ADD COLUMN client_prompt TEXT;
