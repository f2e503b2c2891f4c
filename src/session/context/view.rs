//! Which stored messages the model still sees. Before any compaction: all of them. After one:
//! its summary, then the turns it kept verbatim (its tail), then everything that came later.
//! The store keeps the whole history; only the requests shrink.

use crate::message::{Compaction, FinishReason, Message, PartBody};

/// What the model reads in place of a pruned tool output.
pub(in crate::session) const PRUNED: &str = "[Old tool result content cleared]";

/// The part of the history a request is built from.
pub(in crate::session) struct View<'a> {
    /// The last finished compaction's summary message.
    pub summary: Option<&'a Message>,
    /// The messages after the summary, in order: its kept tail, then the newer ones.
    pub messages: Vec<&'a Message>,
}

/// The compaction mark of a summary message.
pub(in crate::session) fn compaction_of(message: &Message) -> Option<&Compaction> {
    message.parts.iter().find_map(|part| match &part.body {
        PartBody::Compaction(compaction) => Some(compaction),
        _ => None,
    })
}

/// True for a summary message whose compaction finished.
fn is_finished_summary(message: &Message) -> bool {
    message.info.summary && message.info.finish == Some(FinishReason::Stop)
}

pub(in crate::session) fn view(messages: &[Message]) -> View<'_> {
    let Some(at) = messages.iter().rposition(is_finished_summary) else {
        return View {
            summary: None,
            messages: messages.iter().filter(|m| !m.info.summary).collect(),
        };
    };
    let summary = &messages[at];
    let tail_from = compaction_of(summary)
        .and_then(|c| c.tail_start.as_ref())
        .and_then(|id| messages[..at].iter().rposition(|m| &m.info.id == id))
        .unwrap_or(at);
    let kept = messages[tail_from..at].iter();
    let newer = messages[at + 1..].iter();
    View {
        summary: Some(summary),
        messages: kept.chain(newer).filter(|m| !m.info.summary).collect(),
    }
}

/// The text of a summary message (what the model reads in place of what it replaced).
pub(in crate::session) fn summary_text(message: &Message) -> String {
    message
        .parts
        .iter()
        .filter_map(|part| match &part.body {
            PartBody::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
