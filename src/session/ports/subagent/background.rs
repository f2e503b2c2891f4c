//! A subagent in the background: its child session's turn runs in a task of its own while the
//! caller goes on; its end is recorded for the caller's next step (or next prompt), told to
//! the person at once when the caller is idle, and its progress read on request.

use std::sync::Arc;
use std::time::Duration;

use super::{Delegation, end_jobs, run_child, store_error};
use crate::agent::AgentInfo;
use crate::bus::Event;
use crate::id::{MessageId, PartId, SessionId};
use crate::message::{Message, PartBody, Role, ToolState};
use crate::session::core::background::{BackgroundChild, ChildEnd};
use crate::session::core::children::ChildSessions;
use crate::session::error::StopReason;
use crate::tool::{SubagentCall, SubagentOutcome, ToolContext, ToolError, no_background_child};

/// How many of a running child's latest tool calls `task_output` lists.
const CALLS_SHOWN: usize = 20;
/// How much of a running child's latest words `task_output` shows.
const WORDS_SHOWN: usize = 2000;

impl Delegation {
    /// Starts `child`'s turn on `text` in a task of its own and answers at once.
    pub(super) fn start_in_background(
        &self,
        ctx: &ToolContext,
        children: Arc<dyn ChildSessions>,
        (child, text, worktree): (SessionId, Vec<PartBody>, Option<crate::worktree::Worktree>),
        (target, call): (&AgentInfo, &SubagentCall),
    ) -> SubagentOutcome {
        let entry = self
            .background
            .add(child.clone(), &target.name, &call.description);
        let (port, bus, status) = (self.port.clone(), self.bus.clone(), self.status.clone());
        let (parent, parent_call) = (self.caller.clone(), ctx.call_id.clone());
        let running = entry.clone();
        let merger = worktree.map(|worktree| (worktree, ctx.clone()));
        tokio::spawn(async move {
            let stop = run_child(
                children.as_ref(),
                &child,
                text,
                port,
                running.cancel_token(),
            )
            .await;
            let mut ended = end_jobs(children.as_ref(), &child);
            if let Some((worktree, ctx)) = &merger {
                ended.push_str(&super::isolation::merge_back(ctx, worktree).await.0);
            }
            let end = match stop {
                Ok(StopReason::Cancelled) => ChildEnd::Cancelled,
                Ok(_) => match children.last_answer(&child).await {
                    Ok(answer) => ChildEnd::Answered(answer.text + &ended),
                    Err(error) => ChildEnd::Failed(error.to_string()),
                },
                Err(error) => ChildEnd::Failed(error.to_string()),
            };
            running.finish(end.clone());
            bus.publish(Event::SubagentEnded {
                parent_session: parent.clone(),
                parent_call_id: parent_call,
                child_session: child,
            });
            if status.is_idle() {
                // Nobody's turn will carry it soon: the person hears of it now, the model with
                // the next prompt.
                bus.publish(Event::TextDelta {
                    session_id: parent,
                    message_id: MessageId::new(),
                    part_id: PartId::new(),
                    delta: format!("\n{}\n", ended_line(&running, &end)),
                });
            }
        });
        SubagentOutcome {
            session_id: entry.session.to_string(),
            text: "The subagent is working on it in the background. You will be told when it \
                   ends, with its final message; go on with other work meanwhile. task_output \
                   reads its progress, task_cancel stops it."
                .into(),
            cost: None,
            background: true,
            diffs: Vec::new(),
        }
    }

    /// `task_output`: how the child ended, or what it has done so far.
    pub(super) async fn background_progress(
        &self,
        id: &str,
        wait: Duration,
    ) -> Result<String, ToolError> {
        let child = self
            .background
            .get(id)
            .ok_or_else(|| no_background_child(id))?;
        if child.end().is_none() && !wait.is_zero() {
            child.wait(wait).await;
        }
        if let Some(end) = child.end() {
            child.mark_told();
            return Ok(report(&child, &end));
        }
        let messages = self
            .store
            .load_messages(&child.session)
            .map_err(store_error)?;
        Ok(format!(
            "The subagent {} ({}) is still running ({}s so far).\n\n{}",
            child.session,
            child.label(),
            child.age_secs(),
            so_far(&messages)
        ))
    }

    /// `task_cancel`: stops the child; its end is not reported again.
    pub(super) fn stop_background(&self, id: &str) -> Result<String, ToolError> {
        let child = self
            .background
            .get(id)
            .ok_or_else(|| no_background_child(id))?;
        if let Some(end) = child.end() {
            child.mark_told();
            return Ok(format!("It had already ended. {}", report(&child, &end)));
        }
        child.stop();
        child.mark_told();
        Ok(format!(
            "Stopped the subagent {} ({}). What it changed so far stays.",
            child.session,
            child.label()
        ))
    }
}

/// One line for the person: which child ended, and how.
fn ended_line(child: &BackgroundChild, end: &ChildEnd) -> String {
    let how = match end {
        ChildEnd::Answered(_) => "finished; its answer comes with your next message",
        ChildEnd::Cancelled => "was stopped",
        ChildEnd::Failed(_) => "failed; the reason comes with your next message",
    };
    format!("The background subagent {} {how}.", child.label())
}

/// How `child` ended, for its caller's model: its final message, or why it has none.
pub(in crate::session) fn report(child: &BackgroundChild, end: &ChildEnd) -> String {
    let who = format!("Background task {} ({})", child.session, child.label());
    match end {
        ChildEnd::Answered(text) => {
            format!("{who} finished. Its final message:\n<task_result>\n{text}\n</task_result>")
        }
        ChildEnd::Cancelled => format!("{who} was cancelled before it finished."),
        ChildEnd::Failed(why) => format!("{who} failed: {why}"),
    }
}

/// A running child's work so far: its latest tool calls, each marked by its state, and its
/// latest words.
fn so_far(messages: &[Message]) -> String {
    let assistant = messages.iter().filter(|m| m.info.role == Role::Assistant);
    let mut calls = Vec::new();
    let mut words = None;
    for part in assistant.flat_map(|m| &m.parts) {
        match &part.body {
            PartBody::Tool(call) => {
                let mark = match call.state {
                    ToolState::Pending { .. } | ToolState::Running { .. } => "…",
                    ToolState::Completed { .. } => "✓",
                    ToolState::Error { .. } => "✗",
                };
                let title = call.title.as_deref().unwrap_or(&call.tool);
                calls.push(format!("{mark} {} {title}", call.tool));
            }
            PartBody::Text { text, .. } if !text.trim().is_empty() => words = Some(text),
            _ => {}
        }
    }
    let mut out = match calls.len() {
        0 => "No tool calls yet.".to_owned(),
        n => {
            let shown = &calls[n.saturating_sub(CALLS_SHOWN)..];
            let skipped = n - shown.len();
            let mut text = String::from("Its tool calls so far:\n");
            if skipped > 0 {
                text.push_str(&format!("({skipped} earlier calls)\n"));
            }
            text.push_str(&shown.join("\n"));
            text
        }
    };
    if let Some(words) = words {
        let mut cut = words.len().min(WORDS_SHOWN);
        while !words.is_char_boundary(cut) {
            cut -= 1;
        }
        out.push_str(&format!("\n\nIts latest words:\n{}", &words[..cut]));
    }
    out
}
