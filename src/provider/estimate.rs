//! Tokens counted without a tokenizer, the one rule every estimate uses (OpenCode's: a quarter
//! of the characters, rounded): a request's input here, stored messages in the session layer.

use super::{AssistantContent, ModelMessage, ModelRequest, ToolSpec, UserContent};

/// The estimated tokens of `chars` characters of text.
pub fn tokens(chars: usize) -> u64 {
    (chars as u64 + 2) / 4
}

/// The characters a tool's definition adds to a request.
pub fn spec_chars(spec: &ToolSpec) -> usize {
    spec.name.len() + spec.description.len() + spec.parameters.to_string().len()
}

/// A rough count of a request's input (its system prompt, tools and messages), for servers
/// that report no usage (and the scripted model).
pub fn estimate_tokens(request: &ModelRequest) -> u64 {
    let tools: usize = request.tools.iter().map(spec_chars).sum();
    let chars: usize = request.system.iter().map(String::len).sum::<usize>()
        + tools
        + request.messages.iter().map(message_chars).sum::<usize>();
    tokens(chars)
}

fn message_chars(message: &ModelMessage) -> usize {
    match message {
        ModelMessage::User(content) => content
            .iter()
            .map(|c| match c {
                UserContent::Text(text) => text.len(),
                UserContent::Image { data_base64, .. } => data_base64.len(),
            })
            .sum(),
        ModelMessage::Assistant(content) => content
            .iter()
            .map(|c| match c {
                AssistantContent::Text(text) => text.len(),
                AssistantContent::Reasoning { text, .. } => text.len(),
                // Arguments are short next to outputs; their name stands in for them.
                AssistantContent::ToolCall { name, .. } => name.len() + 16,
            })
            .sum(),
        ModelMessage::ToolResult { output, .. } => output.len(),
    }
}
