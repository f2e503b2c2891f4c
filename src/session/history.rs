//! Turns the stored conversation into the provider-neutral messages a model call sends:
//! user parts, assistant text/reasoning/tool calls, and one result per tool call.

use crate::message::{Message, PartBody, Role, ToolState};
use crate::provider::{AssistantContent, ModelMessage, UserContent};

/// What the model is told about a tool call that never finished (a crash or a cancel).
const INTERRUPTED: &str = "Tool execution was interrupted before it finished.";

pub(super) fn to_model_messages(messages: &[Message]) -> Vec<ModelMessage> {
    let mut out = Vec::with_capacity(messages.len() * 2);
    for message in messages {
        match message.info.role {
            Role::User => {
                let content: Vec<UserContent> =
                    message.parts.iter().filter_map(user_content).collect();
                if !content.is_empty() {
                    out.push(ModelMessage::User(content));
                }
            }
            Role::Assistant => push_assistant(message, &mut out),
        }
    }
    out
}

fn user_content(part: &crate::message::Part) -> Option<UserContent> {
    match &part.body {
        PartBody::Text { text, .. } => Some(UserContent::Text(text.clone())),
        PartBody::File { mime, url, .. } if mime.starts_with("image/") => {
            let data = url.split_once(";base64,")?.1;
            Some(UserContent::Image {
                mime: mime.clone(),
                data_base64: data.to_owned(),
            })
        }
        PartBody::File { filename, mime, .. } => Some(UserContent::Text(format!(
            "[attached file {} ({mime}) cannot be shown to the model]",
            filename.as_deref().unwrap_or("(unnamed)")
        ))),
        PartBody::Resource {
            uri,
            text: Some(text),
            ..
        } => Some(UserContent::Text(format!(
            "<file uri=\"{uri}\">\n{text}\n</file>"
        ))),
        PartBody::Resource { uri, name, .. } => Some(UserContent::Text(format!(
            "[the person referred to {} ({uri})]",
            name.as_deref().unwrap_or("a resource")
        ))),
        _ => None,
    }
}

fn push_assistant(message: &Message, out: &mut Vec<ModelMessage>) {
    let mut content = Vec::new();
    let mut results = Vec::new();
    for part in &message.parts {
        match &part.body {
            PartBody::Text { text, .. } if !text.is_empty() => {
                content.push(AssistantContent::Text(text.clone()))
            }
            PartBody::Reasoning { text, signature } => content.push(AssistantContent::Reasoning {
                text: text.clone(),
                signature: signature.clone(),
            }),
            PartBody::Tool(call) => {
                content.push(AssistantContent::ToolCall {
                    id: call.call_id.clone(),
                    name: call.tool.clone(),
                    input: if call.state.input().is_object() {
                        call.state.input().clone()
                    } else {
                        serde_json::Value::Object(Default::default())
                    },
                });
                let (output, is_error, images) = match &call.state {
                    ToolState::Completed {
                        output,
                        attachments,
                        ..
                    } => (
                        output.clone(),
                        false,
                        attachments
                            .iter()
                            .map(|a| (a.mime.clone(), a.data.clone()))
                            .collect(),
                    ),
                    ToolState::Error { error, .. } => (error.clone(), true, Vec::new()),
                    _ => (INTERRUPTED.to_owned(), true, Vec::new()),
                };
                results.push(ModelMessage::ToolResult {
                    call_id: call.call_id.clone(),
                    name: call.tool.clone(),
                    output,
                    is_error,
                    images,
                });
            }
            _ => {}
        }
    }
    if content.is_empty() {
        return;
    }
    out.push(ModelMessage::Assistant(content));
    out.extend(results);
}

/// The final answer of a conversation: the text of its last assistant message that has any.
pub(super) fn last_answer(messages: &[Message]) -> String {
    messages
        .iter()
        .rev()
        .filter(|m| m.info.role == Role::Assistant)
        .find_map(|m| {
            let text: Vec<&str> = m
                .parts
                .iter()
                .filter_map(|p| match &p.body {
                    PartBody::Text {
                        text,
                        synthetic: false,
                    } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            (!text.is_empty()).then(|| text.join(""))
        })
        .unwrap_or_default()
}
