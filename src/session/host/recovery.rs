//! Sessions a process left mid-turn (killed, or crashed): the tool calls it never finished are
//! marked failed as interrupted, and a busy status it left behind goes back to idle.

use crate::id::{SessionId, now_ms};
use crate::message::{Message, PartBody, SessionStatus, ToolState};
use crate::store::{Store, StoreError};

/// What the model and the person read for a call its process did not live to finish.
pub const INTERRUPTED: &str =
    "Interrupted: Tandem stopped before this call finished, so its result is unknown.";

/// Repairs `id`'s stored turn unless a live process other than this one is running it; the
/// repaired parts are written to the store and into `messages` (so a replay shows them).
pub(in crate::session) fn recover(
    store: &Store,
    id: &SessionId,
    messages: &mut [Message],
) -> Result<(), StoreError> {
    let me = std::process::id();
    let left = store
        .active_statuses()?
        .into_iter()
        .find(|(session, _, _)| session == id);
    if let Some((_, _, pid)) = &left
        && *pid != me
        && process_alive(*pid)
    {
        return Ok(());
    }
    let now = now_ms();
    for part in messages.iter_mut().flat_map(|m| m.parts.iter_mut()) {
        let PartBody::Tool(call) = &mut part.body else {
            continue;
        };
        let started_at = match &call.state {
            ToolState::Pending { .. } => now,
            ToolState::Running { started_at, .. } => *started_at,
            ToolState::Completed { .. } | ToolState::Error { .. } => continue,
        };
        call.state = ToolState::Error {
            input: call.state.input().clone(),
            error: INTERRUPTED.to_owned(),
            shown: None,
            started_at,
            ended_at: now,
        };
        store.put_part(part)?;
    }
    if left.is_some() {
        store.put_status(id, &SessionStatus::Idle, me, now)?;
    }
    Ok(())
}

/// Whether process `pid` is still running (signal 0 checks without sending anything).
pub(in crate::session) fn process_alive(pid: u32) -> bool {
    crate::sys::process_exists(pid)
}
