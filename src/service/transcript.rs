//! A session's transcript in a stable format: the person's and the agent's words, each tool
//! call as one line (its input and output only when asked), as Markdown or JSON.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::id::iso8601;
use crate::message::{Message, PartBody, Role, SessionInfo, ToolPart, ToolState};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TranscriptFormat {
    #[serde(alias = "md")]
    Markdown,
    Json,
}

impl TranscriptFormat {
    pub fn name(self) -> &'static str {
        match self {
            TranscriptFormat::Markdown => "md",
            TranscriptFormat::Json => "json",
        }
    }
}

/// The transcript of `info` with its shown `messages`.
pub fn render(
    info: &SessionInfo,
    messages: &[Message],
    format: TranscriptFormat,
    with_tools: bool,
) -> String {
    match format {
        TranscriptFormat::Markdown => markdown(info, messages, with_tools),
        TranscriptFormat::Json => {
            let value = as_json(info, messages, with_tools);
            serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
        }
    }
}

fn markdown(info: &SessionInfo, messages: &[Message], with_tools: bool) -> String {
    let mut out = format!(
        "# {}\n\nSession `{}` in `{}`, created {}, updated {}.\n",
        info.title,
        info.id,
        info.cwd.display(),
        iso8601(info.created_at),
        iso8601(info.updated_at)
    );
    let mut last_role = None;
    for message in messages.iter().filter(|m| !m.info.summary) {
        if last_role != Some(message.info.role) {
            out.push_str(match message.info.role {
                Role::User => "\n## User\n",
                Role::Assistant => "\n## Assistant\n",
            });
            last_role = Some(message.info.role);
        }
        for part in &message.parts {
            match &part.body {
                PartBody::Text {
                    text,
                    synthetic: false,
                } => {
                    out.push('\n');
                    out.push_str(text.trim_end());
                    out.push('\n');
                }
                PartBody::Tool(call) => {
                    out.push_str(&format!("\n- {}\n", tool_line(call)));
                    if with_tools {
                        out.push_str(&format!("\n  ```json\n  {}\n  ```\n", call.state.input()));
                        if let Some(output) = tool_output(&call.state) {
                            let body = output.trim_end().replace('\n', "\n  ");
                            out.push_str(&format!("\n  ```\n  {body}\n  ```\n"));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn as_json(info: &SessionInfo, messages: &[Message], with_tools: bool) -> Value {
    let entries: Vec<Value> = messages
        .iter()
        .filter(|m| !m.info.summary)
        .map(|message| {
            let text: Vec<&str> = message.texts().collect();
            let tools: Vec<Value> = message
                .parts
                .iter()
                .filter_map(|p| match &p.body {
                    PartBody::Tool(call) => Some(tool_json(call, with_tools)),
                    _ => None,
                })
                .collect();
            let mut entry = json!({
                "id": message.info.id,
                "role": message.info.role,
                "agent": message.info.agent,
                "time": message.info.created_at,
                "text": text.join("\n\n"),
            });
            if let Some(model) = &message.info.model {
                entry["model"] = json!(model);
            }
            if !tools.is_empty() {
                entry["tools"] = Value::Array(tools);
            }
            entry
        })
        .collect();
    json!({
        "id": info.id,
        "title": info.title,
        "directory": info.cwd,
        "time": {"created": info.created_at, "updated": info.updated_at},
        "messages": entries,
    })
}

/// "`edit` src/a.rs: completed".
fn tool_line(call: &ToolPart) -> String {
    let title = call.title.as_deref().unwrap_or_default();
    let title = title.lines().next().unwrap_or_default();
    let separator = if title.is_empty() { "" } else { " " };
    format!("`{}`{separator}{title}: {}", call.tool, status(&call.state))
}

fn status(state: &ToolState) -> &'static str {
    match state {
        ToolState::Pending { .. } => "pending",
        ToolState::Running { .. } => "running",
        ToolState::Completed { .. } => "completed",
        ToolState::Error { .. } => "error",
    }
}

fn tool_output(state: &ToolState) -> Option<&str> {
    match state {
        ToolState::Completed { output, .. } => Some(output),
        ToolState::Error { error, .. } => Some(error),
        _ => None,
    }
}

fn tool_json(call: &ToolPart, with_tools: bool) -> Value {
    let mut entry = json!({
        "tool": call.tool,
        "title": call.title,
        "status": status(&call.state),
    });
    if with_tools {
        entry["id"] = json!(call.call_id);
        entry["input"] = call.state.input().clone();
        entry["output"] = json!(tool_output(&call.state));
    }
    entry
}
