//! The few ACP v1 messages Tandem reads from an agent, spelled out with only the fields it
//! uses. Reading the SDK's full schema types instead cost the binary close to a megabyte (their
//! deserializers, with lenient per-field wrappers, are code Tandem's agent side never needed);
//! what is read here is checked against the SDK's own types in the tests below.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

/// `session/update`'s params.
#[derive(Deserialize)]
pub struct Notification {
    pub update: Streamed,
}

#[derive(Deserialize)]
#[serde(tag = "sessionUpdate", rename_all = "snake_case")]
pub enum Streamed {
    AgentMessageChunk {
        content: Block,
    },
    AgentThoughtChunk {
        content: Block,
    },
    ToolCall(CallFields),
    ToolCallUpdate(CallFields),
    Plan {
        #[serde(default)]
        entries: Vec<PlanEntry>,
    },
    UsageUpdate {
        used: u64,
        size: u64,
        #[serde(default)]
        cost: Option<Cost>,
    },
    #[serde(other)]
    Other,
}

/// A content block: its text, or what it is.
#[derive(Deserialize)]
pub struct Block {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub uri: Option<String>,
}

impl Block {
    pub fn words(&self) -> String {
        match (self.kind.as_str(), &self.text) {
            ("text", Some(text)) => text.clone(),
            ("resource_link", _) => format!(
                "[{}]({})",
                self.name.as_deref().unwrap_or_default(),
                self.uri.as_deref().unwrap_or_default()
            ),
            (kind, _) => format!("[{kind}]"),
        }
    }
}

/// A tool call, or an update of one (whose fields are all optional).
#[derive(Deserialize, Clone, Default)]
#[serde(rename_all = "camelCase")]
pub struct CallFields {
    pub tool_call_id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub content: Option<Vec<CallContent>>,
    #[serde(default)]
    pub locations: Option<Vec<CallLocation>>,
    #[serde(default)]
    pub raw_input: Option<Value>,
    #[serde(default)]
    pub raw_output: Option<Value>,
}

#[derive(Deserialize, Clone)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CallContent {
    Content {
        content: Value,
    },
    #[serde(rename_all = "camelCase")]
    Diff {
        path: PathBuf,
        #[serde(default)]
        old_text: Option<String>,
        new_text: String,
    },
    #[serde(rename_all = "camelCase")]
    Terminal {
        terminal_id: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Clone)]
pub struct CallLocation {
    pub path: PathBuf,
    #[serde(default)]
    pub line: Option<u32>,
}

#[derive(Deserialize)]
pub struct PlanEntry {
    pub content: String,
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

#[derive(Deserialize)]
pub struct Cost {
    pub amount: f64,
    pub currency: String,
}

/// `session/request_permission`'s params.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    pub tool_call: CallFields,
    #[serde(default)]
    pub options: Vec<PermissionOption>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    pub kind: String,
}

#[derive(Deserialize)]
pub struct ReadFile {
    pub path: PathBuf,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Deserialize)]
pub struct WriteFile {
    pub path: PathBuf,
    pub content: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTerminal {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: Vec<EnvVar>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub output_byte_limit: Option<u64>,
}

#[derive(Deserialize)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
}

/// Any terminal request after `terminal/create`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TerminalRef {
    pub terminal_id: String,
}

/// What Tandem reads of the agent's `initialize` answer.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Initialized {
    #[serde(default)]
    pub agent_capabilities: AgentCapabilities,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    #[serde(default)]
    pub load_session: bool,
    #[serde(default)]
    pub session_capabilities: SessionCapabilities,
    #[serde(default)]
    pub mcp_capabilities: McpCapabilities,
}

#[derive(Deserialize, Default)]
pub struct SessionCapabilities {
    #[serde(default)]
    pub resume: Option<Value>,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub struct McpCapabilities {
    #[serde(default)]
    pub http: bool,
    #[serde(default)]
    pub sse: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionOpened {
    pub session_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompted {
    pub stop_reason: String,
}

#[cfg(test)]
mod tests;
