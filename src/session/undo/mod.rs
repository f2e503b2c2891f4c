//! `/undo` and `/redo`: the editor's way to revert the last turn and bring it back. They act on
//! the session, never reach the model, and never make a revert permanent.

mod memory;
pub(in crate::session) mod revert;
pub mod rewind;
pub(in crate::session) mod snapshots;

use self::revert::Redo;
use super::error::{SessionError, StopReason};
use crate::bus::Event;
use crate::command::{REDO, UNDO};
use crate::id::{MessageId, PartId};
use crate::message::{PartBody, SessionRevert};
use crate::session::core::state::{Services, SessionState};

/// Whether `content` is exactly `/undo` or `/redo`.
pub(in crate::session) fn is_undo_or_redo(content: &[PartBody]) -> bool {
    command_of(content).is_some()
}

fn command_of(content: &[PartBody]) -> Option<&'static str> {
    match crate::message::sole_text(content)?
        .trim()
        .strip_prefix('/')?
    {
        UNDO => Some(UNDO),
        REDO => Some(REDO),
        _ => None,
    }
}

/// Runs `/undo` or `/redo` if `content` is one; None otherwise.
pub(in crate::session) async fn run(
    state: &mut SessionState,
    services: &Services,
    content: &[PartBody],
) -> Option<Result<StopReason, SessionError>> {
    let said = match command_of(content)? {
        UNDO => undo(state, services).await,
        _ => redo(state, services).await,
    };
    Some(said.map(|text| {
        services.bus.publish(Event::TextDelta {
            session_id: state.info.id.clone(),
            message_id: MessageId::new(),
            part_id: PartId::new(),
            delta: text,
        });
        StopReason::EndTurn
    }))
}

async fn undo(state: &mut SessionState, services: &Services) -> Result<String, SessionError> {
    let Some(target) = revert::undo_target(state) else {
        return Ok("Nothing to undo.".into());
    };
    let excerpt = prompt_excerpt(state, &target);
    let lost = revert::unrestorable(state, &target);
    let revert = revert::revert(state, services, target, None).await?;
    if !lost.is_empty() {
        // No snapshot holds these: say so rather than claim the turn was undone.
        return Ok(format!(
            "Took the turn \u{201c}{excerpt}\u{201d} out of the conversation{}, but could not \
             put back what no snapshot holds: {}. Restore those yourself (git, say). /redo \
             brings the turn back.",
            files_put_back(&revert),
            lost.join(", ")
        ));
    }
    Ok(format!(
        "Undid the turn \u{201c}{excerpt}\u{201d}{}. /redo brings it back; your next prompt makes \
         the undo permanent.",
        files_put_back(&revert)
    ))
}

async fn redo(state: &mut SessionState, services: &Services) -> Result<String, SessionError> {
    match revert::redo_target(state) {
        Redo::Nothing => Ok("Nothing to redo.".into()),
        Redo::RevertTo(next) => {
            let revert = revert::revert(state, services, next, None).await?;
            let _ = revert;
            Ok("Redid one turn; /redo again brings back the next.".into())
        }
        Redo::Unrevert => {
            let undone = revert::unrevert(state, services).await?;
            let files = undone.map_or(0, |r| r.files.len());
            Ok(match files {
                0 => "Redid the undone turns.".into(),
                1 => "Redid the undone turns: 1 file brought back.".into(),
                n => format!("Redid the undone turns: {n} files brought back."),
            })
        }
    }
}

/// ": put back 2 files", or nothing when no file changed.
fn files_put_back(revert: &SessionRevert) -> String {
    match revert.files.len() {
        0 => String::new(),
        1 => ": put back 1 file".into(),
        n => format!(": put back {n} files"),
    }
}

/// The first non-blank line of the prompt `id`, shortened.
fn prompt_excerpt(state: &SessionState, id: &MessageId) -> String {
    let text = state
        .messages
        .iter()
        .find(|m| &m.info.id == id)
        .and_then(|m| {
            m.parts.iter().find_map(|p| match &p.body {
                PartBody::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
        })
        .unwrap_or_default();
    // Clients often start a prompt with blank lines: quote the first line with words.
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}
