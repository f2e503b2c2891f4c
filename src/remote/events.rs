//! What an external agent streams, in Tandem's terms: its words, its thoughts, each tool call
//! as it now stands (updates merged onto what came before), its plan and its usage. The ACP
//! schema types stop here; the session layer sees only these.

use std::collections::HashMap;

use agent_client_protocol::v1::schema::ToolKind as AcpKind;
use agent_client_protocol::v1::schema::{
    ContentBlock, PlanEntryPriority, PlanEntryStatus, SessionUpdate, ToolCallContent,
    ToolCallStatus, ToolCallUpdate,
};
use serde_json::Value;

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
    pub fn event(&mut self, update: SessionUpdate) -> Option<RemoteEvent> {
        Some(match update {
            SessionUpdate::AgentMessageChunk(chunk) => RemoteEvent::Text(words(&chunk.content)),
            SessionUpdate::AgentThoughtChunk(chunk) => RemoteEvent::Thought(words(&chunk.content)),
            SessionUpdate::ToolCall(call) => {
                // A new announcement of the call replaces what was known of it.
                self.0.remove(&*call.tool_call_id.0);
                RemoteEvent::Tool(Box::new(self.merge(ToolCallUpdate::from(call))))
            }
            SessionUpdate::ToolCallUpdate(update) => {
                RemoteEvent::Tool(Box::new(self.merge(update)))
            }
            SessionUpdate::Plan(plan) => RemoteEvent::Plan(
                plan.entries
                    .into_iter()
                    .enumerate()
                    .map(|(at, entry)| Todo {
                        id: format!("{}", at + 1),
                        content: entry.content,
                        status: match entry.status {
                            PlanEntryStatus::InProgress => TodoStatus::InProgress,
                            PlanEntryStatus::Completed => TodoStatus::Completed,
                            _ => TodoStatus::Pending,
                        },
                        priority: match entry.priority {
                            PlanEntryPriority::High => TodoPriority::High,
                            PlanEntryPriority::Low => TodoPriority::Low,
                            _ => TodoPriority::Medium,
                        },
                    })
                    .collect(),
            ),
            SessionUpdate::UsageUpdate(usage) => RemoteEvent::Usage {
                used: usage.used,
                size: usage.size,
                cost: usage
                    .cost
                    .filter(|cost| cost.currency.eq_ignore_ascii_case("USD"))
                    .map(|cost| cost.amount),
            },
            _ => return None,
        })
    }

    /// The call with `update` applied (a call the agent never announced starts here).
    pub fn merge(&mut self, update: ToolCallUpdate) -> RemoteToolCall {
        let id = update.tool_call_id.0.to_string();
        let fields = update.fields;
        // Output of a terminal of the agent's own (Codex's), streamed in `_meta`.
        let streamed = (update.meta.as_ref())
            .and_then(|meta| meta.get("terminal_output_delta")?.get("data")?.as_str())
            .map(str::to_owned);
        let call = self.0.entry(id.clone()).or_insert_with(|| RemoteToolCall {
            id,
            ..Default::default()
        });
        if let Some(title) = fields.title {
            call.title = title;
        }
        if let Some(k) = fields.kind {
            call.kind = kind(k);
        }
        if let Some(s) = fields.status {
            call.status = status(s);
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
                .map(|l| Location {
                    path: l.path,
                    line: l.line,
                })
                .collect();
        }
        if let Some(content) = fields.content {
            set_content(call, content);
        }
        if let Some(data) = streamed {
            call.output.push_str(&data);
        }
        call.clone()
    }
}

/// The words of a content block; what is not text is named.
pub fn words(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::ResourceLink(link) => format!("[{}]({})", link.name, link.uri),
        ContentBlock::Image(_) => "[image]".into(),
        ContentBlock::Audio(_) => "[audio]".into(),
        ContentBlock::Resource(_) => "[resource]".into(),
        _ => "[content]".into(),
    }
}

fn set_content(call: &mut RemoteToolCall, content: Vec<ToolCallContent>) {
    let mut text = Vec::new();
    call.diffs.clear();
    for item in content {
        match item {
            ToolCallContent::Content(block) => text.push(words(&block.content)),
            ToolCallContent::Diff(diff) => call.diffs.push(FileDiff {
                path: diff.path,
                old_text: diff.old_text,
                new_text: diff.new_text,
            }),
            ToolCallContent::Terminal(terminal) => {
                call.terminal_id = Some(terminal.terminal_id.0.to_string())
            }
            _ => {}
        }
    }
    call.output = text.join("\n");
}

fn kind(kind: AcpKind) -> ToolKind {
    match kind {
        AcpKind::Read => ToolKind::Read,
        AcpKind::Edit => ToolKind::Edit,
        AcpKind::Delete => ToolKind::Delete,
        AcpKind::Move => ToolKind::Move,
        AcpKind::Search => ToolKind::Search,
        AcpKind::Execute => ToolKind::Execute,
        AcpKind::Think => ToolKind::Think,
        AcpKind::Fetch => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

fn status(status: ToolCallStatus) -> CallStatus {
    match status {
        ToolCallStatus::InProgress => CallStatus::Running,
        ToolCallStatus::Completed => CallStatus::Completed,
        ToolCallStatus::Failed => CallStatus::Failed,
        _ => CallStatus::Pending,
    }
}

#[cfg(test)]
mod tests;
