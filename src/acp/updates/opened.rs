//! What follows the answer to `session/new`, `load` and `resume`: the session's slash commands
//! (`available_commands_update`), its goal if it has one, and, for a stored session, its usage
//! meter (`usage_update`).

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate, ContentBlock, ContentChunk,
    Cost, Notice, NoticeSeverity, SessionInfoUpdate, SessionNotification, SessionUpdate,
    UnstructuredCommandInput, UsageUpdate,
};
use agent_client_protocol::{Client, Error};
use serde_json::json;

use crate::acp::AcpState;
use crate::id::SessionId;
use crate::message::Usage;
use crate::session::{CommandView, SessionView, UsageReport};

/// Sends the session's commands, then its usage when there is any.
pub fn announce(
    state: &AcpState,
    cx: &ConnectionTo<Client>,
    id: &SessionId,
    view: &SessionView,
    usage: Option<UsageReport>,
) -> Result<(), Error> {
    let update = commands_update(&view.commands);
    state.send(cx, &SessionNotification::new(id.to_string(), update))?;
    // Said live each time the session opens, after its answer; not part of its history. What
    // is left open is a warning; editors that show notices also get what is held.
    let warning = crate::sandbox::warning(&view.sandbox);
    let notices = state.router.shows_notices();
    let update = match warning {
        Some(warning) if notices => Some(SessionUpdate::Notice(
            Notice::new(NoticeSeverity::Warning, "Sandbox").description(warning),
        )),
        Some(warning) => Some(SessionUpdate::AgentMessageChunk(ContentChunk::new(
            ContentBlock::from(format!("{warning}\n\n")),
        ))),
        None if notices && !view.sandbox.is_off() => {
            let coverage = crate::sandbox::Coverage::of(&view.sandbox, crate::sandbox::support());
            Some(SessionUpdate::Notice(
                Notice::new(NoticeSeverity::Info, "Sandbox").description(format!(
                    "{}: {}",
                    view.sandbox.label(),
                    coverage.describe()
                )),
            ))
        }
        None => None,
    };
    if let Some(update) = update {
        state.send(cx, &SessionNotification::new(id.to_string(), update))?;
    }
    if let Some(goal) = &view.goal {
        let update = goal_update(Some(goal.clone()));
        state.send(cx, &SessionNotification::new(id.to_string(), update))?;
    }
    if let Some(report) = usage {
        let update = usage_update(&report.last, report.used, report.size, report.cost);
        state.send(cx, &SessionNotification::new(id.to_string(), update))?;
    }
    Ok(())
}

/// The session's goal as editors read it: `session_info_update` with `_meta.goal` (null when
/// cleared), the shape the first-party adapters use.
pub fn goal_update(goal: Option<serde_json::Value>) -> SessionUpdate {
    let mut meta = serde_json::Map::new();
    meta.insert("goal".into(), goal.unwrap_or(serde_json::Value::Null));
    SessionUpdate::SessionInfoUpdate(SessionInfoUpdate::new().meta(meta))
}

/// The whole list of the session's slash commands.
pub fn commands_update(commands: &[CommandView]) -> SessionUpdate {
    let commands = commands
        .iter()
        .map(|c| {
            let command = AvailableCommand::new(c.name.clone(), c.description.clone());
            match &c.hint {
                Some(hint) => command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(hint.clone()),
                )),
                None => command,
            }
        })
        .collect();
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands))
}

/// The usage meter: tokens in context, the window, the session's cost, and the last call's
/// counts (cache reads and writes included) under `_meta.tandem`, which ACP has no field for.
pub fn usage_update(last: &Usage, used: u64, size: u64, cost: Option<f64>) -> SessionUpdate {
    let mut update = UsageUpdate::new(used, size).meta(
        json!({"tandem": {
            "inputTokens": last.input,
            "outputTokens": last.output,
            "reasoningTokens": last.reasoning,
            "cacheReadTokens": last.cache_read,
            "cacheWriteTokens": last.cache_write,
        }})
        .as_object()
        .cloned(),
    );
    if let Some(amount) = cost {
        update = update.cost(Cost::new(amount, "USD"));
    }
    SessionUpdate::UsageUpdate(update)
}
