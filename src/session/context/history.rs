//! Turns the stored conversation into the provider-neutral messages a model call sends:
//! the compaction summary and what came after it (see `context::view`), user parts, assistant
//! text/reasoning/tool calls, and one result per tool call (cleared once pruned).

use super::view;
use super::view::PRUNED;
use crate::message::{Message, Part, PartBody, Role, ToolState};
use crate::provider::{AssistantContent, ModelMessage, UserContent};

/// What the model is told about a tool call that never finished (a crash or a cancel).
const INTERRUPTED: &str = "Tool execution was interrupted before it finished.";

/// The question a summary answers, put before it so the roles alternate.
pub(in crate::session) const SUMMARY_QUESTION: &str =
    "What have we done so far in this conversation?";

/// How much of each message a request carries.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::session) struct Style {
    /// Tool outputs longer than this many characters are cut (for a compaction's request).
    pub clip_outputs: Option<usize>,
    /// Images become a line naming them (a compaction needs no pixels).
    pub strip_media: bool,
}

/// The request messages for the session's history as the model sees it now.
pub(in crate::session) fn to_model_messages(messages: &[Message]) -> Vec<ModelMessage> {
    let view = view::view(messages);
    let mut out = Vec::with_capacity(view.messages.len() * 2 + 2);
    if let Some(summary) = view.summary {
        push_summary(summary, &mut out);
    }
    convert(&view.messages, Style::default(), &mut out);
    out
}

/// The summary of the compacted history as a question and its answer.
pub(in crate::session) fn push_summary(summary: &Message, out: &mut Vec<ModelMessage>) {
    out.push(ModelMessage::User(vec![UserContent::Text(
        SUMMARY_QUESTION.to_owned(),
    )]));
    out.push(ModelMessage::Assistant(vec![AssistantContent::Text(
        view::summary_text(summary),
    )]));
}

/// `messages` as request messages, appended to `out`.
pub(in crate::session) fn convert(
    messages: &[&Message],
    style: Style,
    out: &mut Vec<ModelMessage>,
) {
    for message in messages {
        match message.info.role {
            Role::User => {
                let content: Vec<UserContent> = message
                    .parts
                    .iter()
                    .filter_map(|part| user_content(part, message.info.joined, style))
                    .collect();
                if !content.is_empty() {
                    out.push(ModelMessage::User(content));
                }
            }
            // An answer that broke off and was asked for again is not the model's to see.
            Role::Assistant if message.info.retried => {}
            Role::Assistant => push_assistant(message, style, out),
        }
    }
}

/// A message the person sent while the agent worked, as the model reads it.
fn joined_text(text: &str) -> String {
    format!(
        "<system-reminder>\nThe user sent the following message while you were working:\n{text}\n\n\
         Please address this message and continue with your tasks.\n</system-reminder>"
    )
}

fn user_content(part: &Part, joined: bool, style: Style) -> Option<UserContent> {
    match &part.body {
        PartBody::Text {
            text,
            synthetic: false,
        } if joined => Some(UserContent::Text(joined_text(text))),
        PartBody::Text { text, .. } => Some(UserContent::Text(text.clone())),
        PartBody::File { mime, filename, .. } if style.strip_media => {
            Some(UserContent::Text(format!(
                "[Attached {mime}: {}]",
                filename.as_deref().unwrap_or("(unnamed)")
            )))
        }
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

fn push_assistant(message: &Message, style: Style, out: &mut Vec<ModelMessage>) {
    let mut content = Vec::new();
    let mut results = Vec::new();
    for part in &message.parts {
        match &part.body {
            PartBody::Text { text, .. } if !text.is_empty() => {
                content.push(AssistantContent::Text(text.clone()))
            }
            PartBody::Reasoning {
                text,
                signature,
                item,
            } => content.push(AssistantContent::Reasoning {
                text: text.clone(),
                signature: signature.clone(),
                item: item.clone(),
            }),
            // The provider's own searches are its business: their results are not ours to
            // send back, and another provider could not read them.
            PartBody::Tool(call) if call.hosted => {}
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
                    ToolState::Completed { .. } if call.pruned_at.is_some() => {
                        (PRUNED.to_owned(), false, Vec::new())
                    }
                    ToolState::Completed { output, .. } if style.strip_media => {
                        (clip(output, style.clip_outputs), false, Vec::new())
                    }
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
                    ToolState::Error { error, .. } => {
                        (clip(error, style.clip_outputs), true, Vec::new())
                    }
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

/// `text`, cut to `max` characters with a note of how much was left out.
fn clip(text: &str, max: Option<usize>) -> String {
    let Some(max) = max else {
        return text.to_owned();
    };
    let Some((cut, _)) = text.char_indices().nth(max) else {
        return text.to_owned();
    };
    let omitted = text[cut..].chars().count();
    format!(
        "{}\n[Tool output truncated for compaction: omitted {omitted} chars]",
        &text[..cut]
    )
}

/// What a conversation's last turn came to: its final words, and what it cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub(in crate::session) struct Answer {
    pub text: String,
    /// The cost of the assistant messages since the last prompt, when any was priced.
    pub cost: Option<f64>,
}

/// The final answer of a conversation: the text of its last assistant message that has any,
/// and the cost of its last turn.
pub(in crate::session) fn last_answer(messages: &[Message]) -> Answer {
    let text = messages
        .iter()
        .rev()
        .filter(|m| m.info.role == Role::Assistant && !m.info.summary)
        .find_map(|m| {
            let text: Vec<&str> = m.texts().collect();
            (!text.is_empty()).then(|| text.join(""))
        })
        .unwrap_or_default();
    let costs: Vec<f64> = messages
        .iter()
        .rev()
        .take_while(|m| m.info.role == Role::Assistant)
        .filter_map(|m| m.info.cost)
        .collect();
    Answer {
        text,
        cost: (!costs.is_empty()).then(|| costs.iter().sum()),
    }
}
