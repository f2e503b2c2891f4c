//! What an external agent streams, in Tandem's terms: its words, its thoughts, each tool call
//! as it now stands (updates merged onto what came before), its plan and its usage. The ACP
//! types stop here; the session layer sees only these.

use std::collections::HashMap;

use serde_json::Value;

use super::wire::{CallContent, CallFields, Streamed};
use crate::message::{FileDiff, Location, ToolKind};
use crate::todo::{Todo, TodoPriority, TodoStatus};

/// One thing the agent said or did.
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteEvent {
    Text(String),
    Thought(String),
    /// A tool call, whole as it stands after its latest update.
    Tool(Box<RemoteToolCall>),
    Plan(Vec<Todo>),
    /// Its context use and, when it says, what the session has cost so far (in dollars).
    Usage {
        used: u64,
        size: u64,
        cost: Option<f64>,
    },
}

/// Where a tool call of the agent stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallStatus {
    #[default]
    Pending,
    Running,
    Completed,
    Failed,
}

/// One tool call of the agent, as it stands.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RemoteToolCall {
    pub id: String,
    pub title: String,
    pub kind: ToolKind,
    pub status: CallStatus,
    pub input: Value,
    /// Its text content, joined.
    pub output: String,
    pub raw_output: Option<Value>,
    pub diffs: Vec<FileDiff>,
    pub terminal_id: Option<String>,
    pub locations: Vec<Location>,
}

/// The agent's tool calls so far, so that an update (which carries only what changed) can be
/// turned into the whole call.
#[derive(Default)]
pub struct Calls(HashMap<String, RemoteToolCall>);

impl Calls {
    /// The event an update from the agent amounts to, if any.
    pub fn event(&mut self, update: Streamed) -> Option<RemoteEvent> {
        Some(match update {
            Streamed::Text(words) => RemoteEvent::Text(words),
            Streamed::Thought(words) => RemoteEvent::Thought(words),
            Streamed::ToolCall(fields) => {
                // A new announcement of the call replaces what was known of it.
                self.0.remove(&fields.tool_call_id);
                RemoteEvent::Tool(Box::new(self.merge(fields)))
            }
            Streamed::ToolCallUpdate(fields) => RemoteEvent::Tool(Box::new(self.merge(fields))),
            Streamed::Plan(entries) => RemoteEvent::Plan(
                entries
                    .into_iter()
                    .enumerate()
                    .map(|(at, entry)| Todo {
                        id: format!("{}", at + 1),
                        content: entry.content,
                        status: match entry.status.as_deref() {
                            Some("in_progress") => TodoStatus::InProgress,
                            Some("completed") => TodoStatus::Completed,
                            _ => TodoStatus::Pending,
                        },
                        priority: match entry.priority.as_deref() {
                            Some("high") => TodoPriority::High,
                            Some("low") => TodoPriority::Low,
                            _ => TodoPriority::Medium,
                        },
                    })
                    .collect(),
            ),
            Streamed::Usage { used, size, cost } => RemoteEvent::Usage { used, size, cost },
            Streamed::Other => return None,
        })
    }

    /// The call with `fields` applied (a call the agent never announced starts here).
    pub fn merge(&mut self, fields: CallFields) -> RemoteToolCall {
        let id = fields.tool_call_id;
        let call = self.0.entry(id.clone()).or_insert_with(|| RemoteToolCall {
            id,
            ..Default::default()
        });
        if let Some(title) = fields.title {
            call.title = title;
        }
        if let Some(k) = fields.kind {
            call.kind = kind(&k);
        }
        if let Some(s) = fields.status {
            call.status = status(&s);
        }
        if let Some(input) = fields.raw_input {
            call.input = input;
        }
        if let Some(output) = fields.raw_output {
            call.raw_output = Some(output);
        }
        if let Some(locations) = fields.locations {
            call.locations = locations
                .into_iter()
                .map(|(path, line)| Location { path, line })
                .collect();
        }
        if let Some(content) = fields.content {
            set_content(call, content);
        }
        call.clone()
    }
}

fn set_content(call: &mut RemoteToolCall, content: Vec<CallContent>) {
    let mut text = Vec::new();
    call.diffs.clear();
    for item in content {
        match item {
            CallContent::Words(words) => text.push(words),
            CallContent::Diff {
                path,
                old_text,
                new_text,
            } => call.diffs.push(FileDiff {
                path,
                old_text,
                new_text,
            }),
            CallContent::Terminal(terminal_id) => call.terminal_id = Some(terminal_id),
            CallContent::Other => {}
        }
    }
    call.output = text.join("\n");
}

fn kind(kind: &str) -> ToolKind {
    match kind {
        "read" => ToolKind::Read,
        "edit" => ToolKind::Edit,
        "delete" => ToolKind::Delete,
        "move" => ToolKind::Move,
        "search" => ToolKind::Search,
        "execute" => ToolKind::Execute,
        "think" => ToolKind::Think,
        "fetch" => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

fn status(status: &str) -> CallStatus {
    match status {
        "in_progress" => CallStatus::Running,
        "completed" => CallStatus::Completed,
        "failed" => CallStatus::Failed,
        _ => CallStatus::Pending,
    }
}
