//! Keeping a conversation inside its model's window: when it is full (`window`), which
//! messages the model still sees (`view`), which turns a compaction keeps (`tail`), and which
//! old tool outputs are cleared from requests (`prune`); the compaction itself runs in a turn
//! (`turn/compaction.rs`).

pub(in crate::session) mod history;
pub mod prune;
pub(in crate::session) mod tail;
pub(in crate::session) mod view;
pub(in crate::session) mod window;

use crate::message::{Message, PartBody, Role, ToolState, Usage};
use crate::provider::tokens;

/// What the editor's usage meter shows for a session.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UsageReport {
    /// The last model call's counts.
    pub last: Usage,
    /// Tokens in the context now.
    pub used: u64,
    /// The model's window.
    pub size: u64,
    /// The session's spend so far in USD, when prices are known.
    pub cost: Option<f64>,
}

/// The usage of a stored session with a model of window `size`: the last call's, or after a
/// compaction the estimate it recorded.
pub(in crate::session) fn report(messages: &[Message], size: u64) -> Option<UsageReport> {
    let last = messages.iter().rev().find(|m| {
        m.info.role == Role::Assistant && m.info.usage.is_some_and(|u| u != Usage::default())
    })?;
    let usage = last.info.usage.unwrap_or_default();
    let used = match view::compaction_of(last) {
        Some(mark) if last.info.summary => mark.tokens_after,
        _ => usage.context_tokens(),
    };
    let costs: Vec<f64> = messages.iter().filter_map(|m| m.info.cost).collect();
    Some(UsageReport {
        last: usage,
        used,
        size,
        cost: (!costs.is_empty()).then(|| costs.iter().sum()),
    })
}

/// The estimated tokens `message` adds to a request.
pub(in crate::session) fn message_tokens(message: &Message) -> u64 {
    let chars: usize = message
        .parts
        .iter()
        .map(|part| match &part.body {
            PartBody::Text { text, .. } | PartBody::Reasoning { text, .. } => text.len(),
            PartBody::Resource { text, uri, .. } => {
                uri.len() + text.as_ref().map_or(0, String::len)
            }
            PartBody::File { .. } => 1_000,
            PartBody::Tool(call) => {
                let output = match &call.state {
                    _ if call.pruned_at.is_some() => view::PRUNED.len(),
                    ToolState::Completed { output, .. } => output.len(),
                    ToolState::Error { error, .. } => error.len(),
                    _ => 0,
                };
                call.tool.len() + call.state.input().to_string().len() + output
            }
            _ => 0,
        })
        .sum();
    tokens(chars)
}
