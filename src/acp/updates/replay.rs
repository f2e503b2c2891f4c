//! `session/load`'s replay: every stored message sent again as the updates the editor saw
//! live: user and agent chunks with their message ids, thoughts, and tool calls.

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{SessionNotification, SessionUpdate};
use agent_client_protocol::{Client, Error};

use crate::acp::AcpState;
use crate::acp::updates::translate;
use crate::id::SessionId;
use crate::message::{Message, PartBody, Role};
use crate::todo::Todo;

pub fn send_history(
    state: &AcpState,
    cx: &ConnectionTo<Client>,
    session_id: &SessionId,
    messages: &[Message],
) -> Result<(), Error> {
    let native = state.router.shows_compactions_natively();
    // A turn that changed files ends with the line the editor saw when it ended live.
    let mut turn_end: Option<&Message> = None;
    let end_turn = |prompt: Option<&Message>| -> Result<(), Error> {
        if let Some(prompt) = prompt
            && let Some(diff) = &prompt.info.diff
        {
            let line = translate::turn_changed(prompt.info.id.as_str(), diff);
            let update = SessionUpdate::AgentMessageChunk(line);
            state.send(
                cx,
                &SessionNotification::new(session_id.to_string(), update),
            )?;
        }
        Ok(())
    };
    for message in messages {
        if message.info.role == Role::User && !message.info.joined {
            end_turn(turn_end.replace(message))?;
        }
        if message.info.summary {
            if let Some(update) = crate::acp::updates::compaction::replayed(message, native) {
                state.send(cx, &update)?;
            }
            continue;
        }
        let from_user = message.info.role == Role::User;
        for part in &message.parts {
            // A notice is not history: editors that were shown one get nothing on replay.
            if matches!(part.body, PartBody::Retry { .. }) && state.router.shows_notices() {
                continue;
            }
            if let Some(update) = translate::replayed_part(part, from_user) {
                state.send(
                    cx,
                    &SessionNotification::new(session_id.to_string(), update),
                )?;
            }
        }
    }
    end_turn(turn_end)
}

/// The session's current plan, when it has a todo list.
pub fn send_plan(
    state: &AcpState,
    cx: &ConnectionTo<Client>,
    session_id: &SessionId,
    todos: &[Todo],
) -> Result<(), Error> {
    if todos.is_empty() {
        return Ok(());
    }
    state.send(
        cx,
        &SessionNotification::new(session_id.to_string(), translate::plan(todos)),
    )
}
