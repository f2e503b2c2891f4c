//! What `tandem run` prints: the editor's view as readable text (streamed text, tool calls
//! with their titles and status, the plan as a checklist) or as ACP JSON lines.
#![allow(clippy::print_stdout)] // The terminal renderer is the one place that writes stdout.

use std::io::Write as _;

use super::Format;
use super::spinner::Spinner;
use crate::acp;
use crate::bus::{CompactionState, Event};
use crate::message::{PartBody, ToolState};
use crate::todo::TodoStatus;

/// Prints one event; the spinner (if any) is cleared first and restarted when the model is
/// waited on again.
pub fn render(format: Format, colour: bool, spinner: Option<&Spinner>, event: &Event) {
    if format == Format::Json {
        if let Some(line) = acp::event_as_json_rpc(event) {
            println!("{line}");
        }
        return;
    }
    // Written to a buffer first: the spinner is erased only when there is something to show.
    let mut out: Vec<u8> = Vec::new();
    let _ = write_event(&mut out, colour, event);
    if !out.is_empty() {
        if let Some(spinner) = spinner {
            spinner.clear();
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&out);
        let _ = stdout.flush();
    }
    if let Some(spinner) = spinner {
        spinner.on_event(event);
    }
}

/// An event as the terminal shows it.
fn write_event(out: &mut Vec<u8>, colour: bool, event: &Event) -> std::io::Result<()> {
    match event {
        Event::TextDelta { delta, .. } => write!(out, "{delta}"),
        Event::ReasoningDelta { delta, .. } if colour => write!(out, "\x1b[2m{delta}\x1b[0m"),
        Event::ReasoningDelta { delta, .. } => write!(out, "{delta}"),
        Event::PartUpdated { part, .. } => write_part(out, &part.body),
        Event::Usage {
            usage,
            context_window,
            ..
        } => match context_window {
            Some(size) => writeln!(
                out,
                "[context: {} of {size} tokens]",
                usage.context_tokens()
            ),
            None => Ok(()),
        },
        Event::ToolOutput { delta, .. } => write!(out, "{}", indent(delta)),
        Event::TurnChanged { diff, .. } => writeln!(out, "[{diff}]"),
        Event::ProtectedSetAside { paths, .. } => writeln!(
            out,
            "[set aside {}: created by a command without approval]",
            paths.join(", ")
        ),
        Event::SnapshotFailed { error, .. } => writeln!(
            out,
            "[no snapshot this turn ({error}): /undo cannot put its files back]"
        ),
        Event::Reverted { .. } | Event::Status { .. } => Ok(()),
        Event::TodoUpdated { todos, .. } => writeln!(out, "Plan:\n{}", checklist(todos)),
        Event::SubagentStarted {
            agent, description, ..
        } => writeln!(out, "→ @{agent}: {description}"),
        Event::SubagentEnded { child_session, .. } => {
            writeln!(out, "[background subagent {child_session} ended]")
        }
        Event::CommandsChanged { .. }
        | Event::GoalChanged { .. }
        | Event::OptionsChanged { .. } => Ok(()),
        Event::ModeChanged { mode, .. } => writeln!(out, "[now in {mode} mode]"),
        Event::Compaction { state, .. } => match state {
            CompactionState::Started => writeln!(out, "[compacting the conversation…]"),
            CompactionState::Completed {
                tokens_before,
                tokens_after,
                ..
            } => writeln!(out, "[compacted: {tokens_before} → {tokens_after} tokens]"),
            CompactionState::Failed { error } => writeln!(out, "[compaction failed: {error}]"),
        },
        Event::SessionUpdated { .. } | Event::ToolTerminal { .. } => Ok(()),
    }
}

/// A finished part: a tool call's line with its status, a retry note, or the end of a text.
fn write_part(out: &mut Vec<u8>, body: &PartBody) -> std::io::Result<()> {
    match body {
        PartBody::Reasoning { .. } | PartBody::Text { .. } => writeln!(out),
        PartBody::Tool(call) => match &call.state {
            ToolState::Pending { .. } => Ok(()),
            ToolState::Running { title, .. } => writeln!(
                out,
                "→ {} {}",
                call.tool,
                title.as_deref().unwrap_or_default()
            ),
            ToolState::Completed { output, title, .. } => {
                writeln!(out, "✓ {} {title}\n{}", call.tool, indent(output))
            }
            ToolState::Error { error, shown, .. } => {
                writeln!(
                    out,
                    "✗ {}: {}",
                    call.tool,
                    shown.as_deref().unwrap_or(error)
                )
            }
        },
        body @ PartBody::Retry { .. } => {
            writeln!(out, "\n[{}]", body.retry_text().unwrap_or_default())
        }
        body @ PartBody::Sources { .. } => {
            write!(out, "{}", body.sources_text().unwrap_or_default())
        }
        _ => Ok(()),
    }
}

/// The plan as a checklist, one indented line a todo.
fn checklist(todos: &[crate::todo::Todo]) -> String {
    todos
        .iter()
        .map(|t| {
            let mark = match t.status {
                TodoStatus::Pending => "[ ]",
                TodoStatus::InProgress => "[~]",
                TodoStatus::Completed => "[x]",
                TodoStatus::Cancelled => "[-]",
            };
            format!("  {mark} {}", t.content)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("  {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The turn's end: a readable line, or the `session/prompt` response an editor would get.
pub fn finish(format: Format, stop: crate::session::StopReason) {
    use crate::session::StopReason;
    let reason = match stop {
        StopReason::EndTurn => "end_turn",
        StopReason::MaxTokens => "max_tokens",
        StopReason::MaxTurnRequests => "max_turn_requests",
        StopReason::Refusal => "refusal",
        StopReason::Cancelled => "cancelled",
    };
    match format {
        Format::Text => println!("\n[stop: {reason}]"),
        Format::Json => println!(
            "{}",
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": reason}})
        ),
    }
}
