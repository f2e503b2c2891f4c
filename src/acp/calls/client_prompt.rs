//! The editor's system prompt on `session/new`, `load`, `resume` and `fork` (ACP's
//! `systemPrompt`): Tandem appends it to the agent's own, stores it with the session and uses it
//! from the next turn on. Only `append` is offered; another mode, a block that is not text, or
//! an empty prompt is refused (-32602), never silently dropped.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{ContentBlock, SystemPrompt, SystemPromptMode};

/// The text to append, if the request sent a system prompt Tandem can take.
pub fn read(prompt: Option<SystemPrompt>) -> Result<Option<String>, Error> {
    let Some(prompt) = prompt else {
        return Ok(None);
    };
    if prompt.mode != SystemPromptMode::Append {
        return Err(Error::new(
            -32602,
            "Tandem appends the editor's system prompt to its own (mode \"append\"); it does not replace it",
        ));
    }
    let mut text = Vec::new();
    for block in prompt.content {
        match block {
            ContentBlock::Text(block) => text.push(block.text),
            _ => {
                return Err(Error::new(-32602, "a system prompt takes text blocks only"));
            }
        }
    }
    let text = text.join("\n");
    if text.trim().is_empty() {
        return Err(Error::new(-32602, "the system prompt is empty"));
    }
    Ok(Some(text))
}
