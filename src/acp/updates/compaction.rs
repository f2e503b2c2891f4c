//! How a compaction shows in the editor: ACP's `compaction_update` (in progress, then completed
//! with the summary, or failed) when the client has the `session.compaction` capability, else
//! a short agent message saying the context was compacted and about how many tokens it freed.

use agent_client_protocol::v1::schema::{
    CompactionStatus, CompactionUpdate, ContentBlock, SessionNotification, SessionUpdate,
};
use serde_json::json;

use crate::acp::updates::chunk::chunk;
use crate::bus::CompactionState;
use crate::id::{MessageId, SessionId};
use crate::message::{Message, PartBody};
use crate::numbers::thousands;

/// The update for a compaction event; `native` when the client shows compactions itself.
pub fn update(
    session_id: &SessionId,
    compaction_id: &MessageId,
    state: &CompactionState,
    native: bool,
) -> Option<SessionNotification> {
    let update = if native {
        SessionUpdate::CompactionUpdate(native_update(compaction_id, state))
    } else {
        SessionUpdate::AgentMessageChunk(chunk(message(state)?, compaction_id.as_str()))
    };
    Some(SessionNotification::new(session_id.to_string(), update))
}

fn native_update(compaction_id: &MessageId, state: &CompactionState) -> CompactionUpdate {
    let id = compaction_id.as_str().to_owned();
    match state {
        CompactionState::Started => CompactionUpdate::new(id, CompactionStatus::InProgress),
        CompactionState::Completed {
            summary,
            tokens_before,
            tokens_after,
        } => CompactionUpdate::new(id, CompactionStatus::Completed)
            .summary(vec![ContentBlock::from(summary.clone())])
            .meta(
                json!({"tandem": {
                    "tokensBefore": tokens_before,
                    "tokensAfter": tokens_after,
                    "tokensFreed": tokens_before.saturating_sub(*tokens_after),
                }})
                .as_object()
                .cloned(),
            ),
        CompactionState::Failed { error } => {
            CompactionUpdate::new(id, CompactionStatus::Failed).error(error.clone())
        }
    }
}

/// The agent message a client without the capability is shown.
fn message(state: &CompactionState) -> Option<String> {
    match state {
        CompactionState::Started => Some("Compacting the conversation to free context…\n".into()),
        CompactionState::Completed {
            tokens_before,
            tokens_after,
            ..
        } => Some(format!(
            "Context compacted: about {} tokens freed ({} → {} tokens). The full conversation \
             stays in the session; the model continues from a summary and the latest turns.\n\n",
            thousands(tokens_before.saturating_sub(*tokens_after)),
            thousands(*tokens_before),
            thousands(*tokens_after),
        )),
        // The turn's error says why.
        CompactionState::Failed { .. } => None,
    }
}

/// A stored summary message replayed on `session/load` as the update it was live.
pub fn replayed(message: &Message, native: bool) -> Option<SessionNotification> {
    let mark = message.parts.iter().find_map(|p| match &p.body {
        PartBody::Compaction(mark) => Some(mark),
        _ => None,
    })?;
    let summary = message
        .parts
        .iter()
        .filter_map(|p| match &p.body {
            PartBody::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let state = CompactionState::Completed {
        summary,
        tokens_before: mark.tokens_before,
        tokens_after: mark.tokens_after,
    };
    update(&message.info.session_id, &message.info.id, &state, native)
}
