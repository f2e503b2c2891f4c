//! Core events and stored parts → ACP `session/update`s: message chunks with their
//! `messageId`, tool calls and their updates, usage and session info.

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, CurrentModeUpdate, Diff, ImageContent, MessageId, Notice,
    NoticeSeverity, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionInfoUpdate,
    SessionNotification, SessionUpdate, Terminal, ToolCall, ToolCallContent, ToolCallLocation,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind as AcpToolKind,
};
use serde_json::{Value, json};

use crate::acp::updates::chunk::chunk;
use crate::bus::Event;
use crate::id;
use crate::message::{DiffSummary, FileDiff, Part, PartBody, ToolKind, ToolPart, ToolState};
use crate::todo::{Todo, TodoPriority, TodoStatus};

/// The ACP update for a live event, if the editor shows it.
pub fn event_update(event: &Event) -> Option<SessionNotification> {
    let update = match event {
        Event::TextDelta {
            message_id, delta, ..
        } => SessionUpdate::AgentMessageChunk(chunk(delta.clone(), message_id.as_str())),
        Event::ReasoningDelta {
            message_id, delta, ..
        } => SessionUpdate::AgentThoughtChunk(chunk(delta.clone(), message_id.as_str())),
        Event::PartUpdated { part, is_new } => match &part.body {
            PartBody::Tool(call) if *is_new => replayed_tool_call(call),
            PartBody::Tool(call) => tool_update(call),
            body @ PartBody::Retry { .. } if *is_new => {
                SessionUpdate::AgentMessageChunk(retry_chunk(body, part.message_id.as_str())?)
            }
            body @ PartBody::Sources { .. } if *is_new => SessionUpdate::AgentMessageChunk(chunk(
                body.sources_text()?,
                part.message_id.as_str(),
            )),
            _ => return None,
        },
        Event::ToolOutput { call_id, delta, .. } => output_delta(call_id, delta),
        Event::ToolTerminal {
            call_id,
            terminal_id,
            ..
        } => terminal(call_id, terminal_id),
        Event::TodoUpdated { todos, .. } => plan(todos),
        Event::SubagentStarted {
            parent_call_id,
            child_session,
            ..
        } => child_started(parent_call_id, child_session.as_str()),
        // Routed on its own: a native editor hears the child is idle.
        Event::SubagentEnded { .. } => return None,
        Event::GoalChanged { goal, .. } => super::opened::goal_update(goal.clone()),
        Event::Usage {
            usage,
            context_window,
            cost,
            ..
        } => {
            let size = (*context_window)?;
            super::opened::usage_update(usage, usage.context_tokens(), size, *cost)
        }
        Event::Compaction {
            session_id,
            compaction_id,
            state,
        } => {
            return super::compaction::update(session_id, compaction_id, state, false);
        }
        Event::CommandsChanged { commands, .. } => super::opened::commands_update(commands),
        Event::ModeChanged { mode, .. } => {
            SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(mode.clone()))
        }
        Event::TurnChanged {
            message_id, diff, ..
        } => SessionUpdate::AgentMessageChunk(turn_changed(message_id.as_str(), diff)),
        Event::SnapshotFailed { .. } | Event::ProtectedSetAside { .. } => notice(event)?,
        // Asked for: `session/status`, `_tandem/session/status`; a retry is shown as a part.
        Event::Reverted { .. } | Event::Status { .. } => return None,
        // The editor reads the whole option list again: see `AcpState::show`.
        Event::OptionsChanged { .. } => return None,
        Event::SessionUpdated { info } => SessionUpdate::SessionInfoUpdate(
            SessionInfoUpdate::new()
                .title(info.title.clone())
                .updated_at(id::iso8601(info.updated_at)),
        ),
    };
    Some(SessionNotification::new(
        event.session_id().to_string(),
        update,
    ))
}

/// What Tandem tells the person in the conversation of its own accord: a snapshot that failed,
/// protected files a command created that were set aside.
fn notice(event: &Event) -> Option<SessionUpdate> {
    let chunk = match event {
        Event::SnapshotFailed {
            message_id, error, ..
        } => chunk(
            format!(
                "\n\nTandem could not record a snapshot of the project this turn ({error}): \
                 /undo cannot put back the files it changed.\n"
            ),
            &format!("{message_id}-snapshot"),
        ),
        Event::ProtectedSetAside { paths, .. } => chunk(
            format!(
                "\n\nTandem set aside {} (renamed with .set-aside-by-tandem): a command created \
                 it without your approval, and it would change what Tandem, git or your shell \
                 do. Rename it back, or ask for it and approve it, if you want it.\n",
                paths.join(", ")
            ),
            "tandem-protected",
        ),
        _ => return None,
    };
    Some(SessionUpdate::AgentMessageChunk(chunk))
}

/// The line that ends a turn which changed files, under its own message id (derived from the
/// turn's prompt, so a replay shows it with the same id).
pub fn turn_changed(prompt_id: &str, diff: &DiffSummary) -> ContentChunk {
    chunk(
        format!("\n\n{diff}. /undo reverts this turn.\n"),
        &format!("{prompt_id}-changes"),
    )
}

/// A retry as a line of the answer it delays, for editors that show no notices.
fn retry_chunk(body: &PartBody, message_id: &str) -> Option<ContentChunk> {
    Some(chunk(format!("\n\n{}\n\n", body.retry_text()?), message_id))
}

/// A retry as a live notice, for editors that show them (`session.notices`).
pub fn retry_notice(body: &PartBody) -> Option<SessionUpdate> {
    Some(SessionUpdate::Notice(
        Notice::new(NoticeSeverity::Warning, "Retrying the model request")
            .description(body.retry_text()?),
    ))
}

/// The ACP kind of a call's kind (none known: other).
pub fn tool_kind(kind: Option<ToolKind>) -> AcpToolKind {
    match kind.unwrap_or_default() {
        ToolKind::Read => AcpToolKind::Read,
        ToolKind::Edit => AcpToolKind::Edit,
        ToolKind::Delete => AcpToolKind::Delete,
        ToolKind::Move => AcpToolKind::Move,
        ToolKind::Search => AcpToolKind::Search,
        ToolKind::Execute => AcpToolKind::Execute,
        ToolKind::Think => AcpToolKind::Think,
        ToolKind::Fetch => AcpToolKind::Fetch,
        ToolKind::SwitchMode => AcpToolKind::SwitchMode,
        ToolKind::Other => AcpToolKind::Other,
    }
}

/// A file change as ACP content (whole files; see `upstream::old_text` for a new file's `oldText`).
pub fn diff_content(diff: &FileDiff) -> ToolCallContent {
    ToolCallContent::from(
        Diff::new(diff.path.clone(), diff.new_text.clone()).old_text(diff.old_text.clone()),
    )
}

fn status(state: &ToolState) -> ToolCallStatus {
    match state {
        ToolState::Pending { .. } => ToolCallStatus::Pending,
        ToolState::Running { .. } => ToolCallStatus::InProgress,
        ToolState::Completed { .. } => ToolCallStatus::Completed,
        ToolState::Error { .. } => ToolCallStatus::Failed,
    }
}

fn title(call: &ToolPart) -> String {
    match (&call.state, &call.title) {
        (ToolState::Completed { title, .. }, _) if !title.is_empty() => title.clone(),
        (_, Some(title)) => title.clone(),
        _ => call.tool.clone(),
    }
}

fn locations(call: &ToolPart) -> Vec<ToolCallLocation> {
    call.locations
        .iter()
        .map(|l| ToolCallLocation::new(l.path.clone()).line(l.line))
        .collect()
}

/// The content and raw output of a finished call: its file diffs (whole files), then its
/// text, then its images; live, a command that ran in the editor's terminal keeps showing that
/// terminal. A failed call shows the person's words where they differ from the model's.
/// The longest output repeated in a call's `rawOutput` beside its content.
const RAW_OUTPUT_MAX: usize = 4096;

fn result(state: &ToolState, live: bool) -> Option<(Vec<ToolCallContent>, Value)> {
    match state {
        ToolState::Completed {
            output,
            metadata,
            diffs,
            attachments,
            terminal_id,
            ..
        } => {
            // The output is the call's content already: a large one is not sent twice.
            let raw = if output.len() <= RAW_OUTPUT_MAX {
                json!({"output": output, "metadata": metadata})
            } else {
                json!({"outputBytes": output.len(), "metadata": metadata})
            };
            if let Some(terminal_id) = terminal_id.as_ref().filter(|_| live) {
                let terminal = ToolCallContent::Terminal(Terminal::new(terminal_id.clone()));
                return Some((vec![terminal], raw));
            }
            let mut content: Vec<ToolCallContent> = diffs.iter().map(diff_content).collect();
            // A tool may give the person a summary of what the model reads (the todo list).
            let shown = metadata.get("display").and_then(Value::as_str);
            content.push(ToolCallContent::from(
                shown.map_or_else(|| output.clone(), str::to_owned),
            ));
            content.extend(attachments.iter().map(|a| {
                ToolCallContent::from(ContentBlock::Image(ImageContent::new(
                    a.data.clone(),
                    a.mime.clone(),
                )))
            }));
            Some((content, raw))
        }
        ToolState::Error { error, shown, .. } => Some((
            vec![ToolCallContent::from(
                shown.as_ref().unwrap_or(error).clone(),
            )],
            json!({"error": error}),
        )),
        _ => None,
    }
}

/// A later state of a call the editor has seen: only what changes.
fn tool_update(call: &ToolPart) -> SessionUpdate {
    let mut fields = ToolCallUpdateFields::new()
        .status(status(&call.state))
        .title(title(call))
        .raw_input(call.state.input().clone())
        .locations(locations(call));
    if let Some((content, raw)) = result(&call.state, true) {
        fields = fields.content(content).raw_output(raw);
    }
    let update = ToolCallUpdate::new(call.call_id.clone(), fields);
    SessionUpdate::ToolCallUpdate(match sandbox_meta(call) {
        Some(meta) => update.meta(meta),
        None => update,
    })
}

/// `_meta.tandem.sandbox` of a finished command: the sandbox it ran in (`workspace-write`,
/// `read-only, no network`, `off`, `outside` when the person let it out, `unavailable`).
fn sandbox_meta(call: &ToolPart) -> Option<serde_json::Map<String, Value>> {
    let ToolState::Completed { metadata, .. } = &call.state else {
        return None;
    };
    let sandbox = metadata.get("sandbox")?.clone();
    let mut tandem = json!({ "sandbox": sandbox });
    // What this kernel's sandbox held for the command: its Landlock ABI and what it left open.
    for key in ["sandboxAbi", "sandboxGaps"] {
        if let Some(value) = metadata.get(key).filter(|v| !v.is_null()) {
            tandem[key] = value.clone();
        }
    }
    let mut meta = serde_json::Map::new();
    meta.insert("tandem".into(), tandem);
    Some(meta)
}

/// A call as one complete `tool_call`: its first sighting, or its replay.
pub fn replayed_tool_call(call: &ToolPart) -> SessionUpdate {
    let mut tool_call = ToolCall::new(call.call_id.clone(), title(call))
        .kind(tool_kind(call.kind))
        .status(status(&call.state))
        .raw_input(call.state.input().clone())
        .locations(locations(call));
    if let Some((content, raw)) = result(&call.state, false) {
        tool_call = tool_call.content(content).raw_output(raw);
    }
    if let Some(meta) = sandbox_meta(call) {
        tool_call = tool_call.meta(meta);
    }
    SessionUpdate::ToolCall(tool_call)
}

/// New output of a running call: only the new text, marked as a delta in `_meta`, so the
/// editor never receives the accumulated output again.
fn output_delta(call_id: &str, delta: &str) -> SessionUpdate {
    let mut meta = serde_json::Map::new();
    meta.insert("tandem".into(), json!({"outputDelta": true}));
    SessionUpdate::ToolCallUpdate(
        ToolCallUpdate::new(
            call_id.to_owned(),
            ToolCallUpdateFields::new().content(vec![ToolCallContent::from(delta.to_owned())]),
        )
        .meta(meta),
    )
}

fn terminal(call_id: &str, terminal_id: &str) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
        call_id.to_owned(),
        ToolCallUpdateFields::new().content(vec![ToolCallContent::Terminal(Terminal::new(
            terminal_id.to_owned(),
        ))]),
    ))
}

/// The update that replays one stored part, if it is shown.
pub fn replayed_part(part: &Part, from_user: bool) -> Option<SessionUpdate> {
    let message_id = part.message_id.as_str();
    let content = match &part.body {
        // Tandem's own notes to the model (mode reminders) are not the person's words.
        PartBody::Text {
            synthetic: true, ..
        } => return None,
        PartBody::Text { text, .. } => ContentBlock::from(text.clone()),
        PartBody::Reasoning { text, .. } => {
            return Some(SessionUpdate::AgentThoughtChunk(chunk(
                text.clone(),
                message_id,
            )));
        }
        PartBody::Tool(call) => return Some(replayed_tool_call(call)),
        body @ PartBody::Retry { .. } => {
            return Some(SessionUpdate::AgentMessageChunk(retry_chunk(
                body, message_id,
            )?));
        }
        body => super::stored_content::content_block(body)?,
    };
    let chunk = ContentChunk::new(content).message_id(MessageId::new(message_id.to_owned()));
    Some(if from_user {
        SessionUpdate::UserMessageChunk(chunk)
    } else {
        SessionUpdate::AgentMessageChunk(chunk)
    })
}

/// The editor's plan for a todo list: every item, in order. ACP v1 has no "cancelled", so a
/// cancelled item shows as completed, with its true status (and id) in the entry's `_meta`.
pub fn plan(todos: &[Todo]) -> SessionUpdate {
    let entries = todos
        .iter()
        .map(|todo| {
            let status = match todo.status {
                TodoStatus::Pending => PlanEntryStatus::Pending,
                TodoStatus::InProgress => PlanEntryStatus::InProgress,
                TodoStatus::Completed | TodoStatus::Cancelled => PlanEntryStatus::Completed,
            };
            let priority = match todo.priority {
                TodoPriority::High => PlanEntryPriority::High,
                TodoPriority::Medium => PlanEntryPriority::Medium,
                TodoPriority::Low => PlanEntryPriority::Low,
            };
            let mut meta = serde_json::Map::new();
            meta.insert(
                "tandem".into(),
                json!({"id": todo.id, "status": todo.status}),
            );
            PlanEntry::new(todo.content.clone(), priority, status).meta(meta)
        })
        .collect();
    SessionUpdate::Plan(Plan::new(entries))
}

/// The `task` call learns its child session's id.
fn child_started(call_id: &str, child: &str) -> SessionUpdate {
    let mut meta = serde_json::Map::new();
    meta.insert("tandem".into(), json!({"childSessionId": child}));
    SessionUpdate::ToolCallUpdate(
        ToolCallUpdate::new(call_id.to_owned(), ToolCallUpdateFields::new()).meta(meta),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_statuses_map_to_plan_statuses() {
        let todo = |status| Todo {
            id: "i".into(),
            content: "c".into(),
            status,
            priority: TodoPriority::Low,
        };
        let todos = [
            todo(TodoStatus::Pending),
            todo(TodoStatus::InProgress),
            todo(TodoStatus::Completed),
            todo(TodoStatus::Cancelled),
        ];
        let SessionUpdate::Plan(plan) = plan(&todos) else {
            panic!("a plan update");
        };
        let statuses: Vec<PlanEntryStatus> =
            plan.entries.iter().map(|e| e.status.clone()).collect();
        assert_eq!(
            statuses,
            [
                PlanEntryStatus::Pending,
                PlanEntryStatus::InProgress,
                PlanEntryStatus::Completed,
                PlanEntryStatus::Completed
            ]
        );
        let meta = plan.entries[3].meta.as_ref().unwrap();
        assert_eq!(meta["tandem"]["status"], "cancelled");
        assert_eq!(plan.entries[0].priority, PlanEntryPriority::Low);
    }
}
