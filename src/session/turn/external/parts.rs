//! What an external agent streams, kept as the child session's parts, exactly as Tandem's own
//! turns keep theirs: its words and thoughts as they stream, each tool call (a part updated in
//! place as the agent reports it), its plan as the session's todo list, its usage.

use std::collections::HashMap;

use serde_json::Value;

use super::host::ExternalHost;
use crate::id::{PartId, now_ms};
use crate::message::{PartBody, ToolPart, ToolState};
use crate::remote::{CallStatus, RemoteEvent, RemoteToolCall};
use crate::session::turn::setup::TurnSetup;
use crate::session::turn::stream::Draft;
use crate::store::StoreError;
use crate::tool::TodoPort;

/// The agent's latest usage report.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Reported {
    pub used: u64,
    pub size: u64,
    /// What its session has cost so far, in dollars.
    pub cost: Option<f64>,
}

/// The most of a turn's words kept to tell a failure the agent only said.
const SAID_KEPT: usize = 400;

/// How agents begin a message that stands for a failure of their provider (Codex reports one
/// as its turn's only words, and ends the turn as if all went well).
const FAILURE_OPENINGS: [&str; 5] = [
    "exceeded retry limit, last status: 429",
    "You've hit your usage limit",
    "You have hit your usage limit",
    "API Error: 429",
    "Rate limit reached",
];

/// The parts the agent's calls became, and when each started.
#[derive(Default)]
pub(super) struct Parts {
    calls: HashMap<String, (PartId, i64)>,
    pub usage: Option<Reported>,
    /// Its words this turn, the first few hundred characters.
    said: String,
}

impl Parts {
    pub fn take(
        &mut self,
        draft: &mut Draft,
        setup: &TurnSetup,
        host: &ExternalHost,
        event: RemoteEvent,
    ) -> Result<(), StoreError> {
        match event {
            RemoteEvent::Text(delta) => {
                if self.said.len() <= SAID_KEPT {
                    self.said.push_str(&delta);
                }
                draft.text(delta)
            }
            RemoteEvent::Thought(delta) => draft.reasoning(delta),
            RemoteEvent::Tool(mut call) => {
                draft.close_open()?;
                // A command Tandem ran itself has no terminal the editor knows: its output
                // is in the call's text instead.
                if call
                    .terminal_id
                    .as_deref()
                    .is_some_and(|id| !host.in_editor(id))
                {
                    call.terminal_id = None;
                }
                let (id, started_at) = self
                    .calls
                    .entry(call.id.clone())
                    .or_insert_with(|| (PartId::new(), now_ms()))
                    .clone();
                draft.save(PartBody::tool(tool_part(*call, started_at)), Some(id))
            }
            RemoteEvent::Plan(todos) => {
                if let Err(error) = setup.todos.set_todos(&setup.session_id, todos) {
                    tracing::warn!(%error, "an external agent's plan could not be kept");
                }
                Ok(())
            }
            RemoteEvent::Usage { used, size, cost } => {
                self.usage = Some(Reported { used, size, cost });
                Ok(())
            }
        }
    }
}

impl Parts {
    /// The failure the agent only said, when its turn was a short message that opens as its
    /// provider's refusals do, and nothing else.
    pub fn failure_said(&self) -> Option<String> {
        let said = self.said.trim();
        let opens = FAILURE_OPENINGS.iter().any(|o| said.starts_with(o));
        (self.calls.is_empty() && said.len() <= SAID_KEPT && opens).then(|| said.to_owned())
    }
}

/// The tool part a call of the agent is, as it stands.
fn tool_part(call: RemoteToolCall, started_at: i64) -> ToolPart {
    let input = call.input;
    let title = call.title;
    let state = match call.status {
        CallStatus::Pending => ToolState::Pending { input },
        CallStatus::Running => ToolState::Running {
            input,
            title: Some(title.clone()),
            started_at,
        },
        CallStatus::Completed => ToolState::Completed {
            input,
            output: call.output,
            title: title.clone(),
            metadata: call.raw_output.unwrap_or(Value::Null),
            diffs: call.diffs,
            attachments: Vec::new(),
            terminal_id: call.terminal_id,
            started_at,
            ended_at: now_ms(),
        },
        CallStatus::Failed => ToolState::Error {
            input,
            error: if call.output.is_empty() {
                "The call failed.".into()
            } else {
                call.output
            },
            shown: None,
            started_at,
            ended_at: now_ms(),
        },
    };
    ToolPart {
        call_id: call.id,
        tool: tool_name(call.kind).into(),
        kind: Some(call.kind),
        state,
        title: Some(title),
        locations: call.locations,
        pruned_at: None,
        hosted: false,
    }
}

fn tool_name(kind: crate::message::ToolKind) -> &'static str {
    use crate::message::ToolKind::*;
    match kind {
        Read => "read",
        Edit => "edit",
        Delete => "delete",
        Move => "move",
        Search => "search",
        Execute => "execute",
        Think => "think",
        Fetch => "fetch",
        SwitchMode => "switch_mode",
        Other => "other",
    }
}
