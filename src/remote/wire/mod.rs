//! The few ACP v1 messages Tandem reads from an agent, picked field by field out of the JSON.
//! Deserializing them into the SDK's schema types cost the binary close to a megabyte, and
//! into lean derived types still about 85 KB; these few fields are read once per message.
//! What is read here is checked against what the SDK's own types write, in the tests below.

pub mod form;

use std::path::PathBuf;

use serde_json::Value;

/// `value[key]` as a string.
pub fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key)?.as_str().map(str::to_owned)
}

/// The words of a content block; what is not text is named.
pub fn words(block: &Value) -> String {
    match block["type"].as_str().unwrap_or_default() {
        "text" => text(block, "text").unwrap_or_default(),
        "resource_link" => format!(
            "[{}]({})",
            block["name"].as_str().unwrap_or_default(),
            block["uri"].as_str().unwrap_or_default()
        ),
        kind => format!("[{kind}]"),
    }
}

/// What one `session/update` says.
pub enum Streamed {
    Text(String),
    Thought(String),
    ToolCall(CallFields),
    ToolCallUpdate(CallFields),
    Plan(Vec<PlanEntry>),
    Usage {
        used: u64,
        size: u64,
        /// In dollars, when the agent reports it in USD.
        cost: Option<f64>,
    },
    Other,
}

impl Streamed {
    /// `session/update`'s params read.
    pub fn read(params: &Value) -> Self {
        let update = &params["update"];
        match update["sessionUpdate"].as_str().unwrap_or_default() {
            "agent_message_chunk" => Self::Text(words(&update["content"])),
            "agent_thought_chunk" => Self::Thought(words(&update["content"])),
            "tool_call" => CallFields::read(update).map_or(Self::Other, Self::ToolCall),
            "tool_call_update" => {
                CallFields::read(update).map_or(Self::Other, Self::ToolCallUpdate)
            }
            "plan" => Self::Plan(
                update["entries"]
                    .as_array()
                    .map(|entries| entries.iter().filter_map(PlanEntry::read).collect())
                    .unwrap_or_default(),
            ),
            "usage_update" => match (update["used"].as_u64(), update["size"].as_u64()) {
                (Some(used), Some(size)) => Self::Usage {
                    used,
                    size,
                    cost: update["cost"]["currency"]
                        .as_str()
                        .filter(|c| c.eq_ignore_ascii_case("USD"))
                        .and_then(|_| update["cost"]["amount"].as_f64()),
                },
                _ => Self::Other,
            },
            _ => Self::Other,
        }
    }
}

/// A tool call, or an update of one (whose fields are all optional).
#[derive(Clone, Default)]
pub struct CallFields {
    pub tool_call_id: String,
    pub title: Option<String>,
    pub kind: Option<String>,
    pub status: Option<String>,
    pub content: Option<Vec<CallContent>>,
    pub locations: Option<Vec<(PathBuf, Option<u32>)>>,
    pub raw_input: Option<Value>,
    pub raw_output: Option<Value>,
}

impl CallFields {
    pub fn read(call: &Value) -> Option<Self> {
        let present = |key: &str| call.get(key).filter(|v| !v.is_null());
        Some(Self {
            tool_call_id: text(call, "toolCallId")?,
            title: text(call, "title"),
            kind: text(call, "kind"),
            status: text(call, "status"),
            content: present("content")
                .and_then(Value::as_array)
                .map(|items| items.iter().map(CallContent::read).collect()),
            locations: present("locations").and_then(Value::as_array).map(|all| {
                all.iter()
                    .filter_map(|l| {
                        let path = PathBuf::from(l["path"].as_str()?);
                        Some((path, l["line"].as_u64().map(|n| n as u32)))
                    })
                    .collect()
            }),
            raw_input: present("rawInput").cloned(),
            raw_output: present("rawOutput").cloned(),
        })
    }
}

#[derive(Clone)]
pub enum CallContent {
    /// A content block's words.
    Words(String),
    Diff {
        path: PathBuf,
        old_text: Option<String>,
        new_text: String,
    },
    Terminal(String),
    Other,
}

impl CallContent {
    fn read(item: &Value) -> Self {
        match item["type"].as_str().unwrap_or_default() {
            "content" => Self::Words(words(&item["content"])),
            "diff" => match (text(item, "path"), text(item, "newText")) {
                (Some(path), Some(new_text)) => Self::Diff {
                    path: path.into(),
                    old_text: text(item, "oldText"),
                    new_text,
                },
                _ => Self::Other,
            },
            "terminal" => text(item, "terminalId").map_or(Self::Other, Self::Terminal),
            _ => Self::Other,
        }
    }
}

pub struct PlanEntry {
    pub content: String,
    pub priority: Option<String>,
    pub status: Option<String>,
}

impl PlanEntry {
    fn read(entry: &Value) -> Option<Self> {
        Some(Self {
            content: text(entry, "content")?,
            priority: text(entry, "priority"),
            status: text(entry, "status"),
        })
    }
}

/// `session/request_permission`'s params: the call as the agent describes it, and its options
/// (id, kind).
pub fn permission_request(params: &Value) -> Option<(CallFields, Vec<(String, String)>)> {
    let call = CallFields::read(&params["toolCall"])?;
    let options = params["options"]
        .as_array()?
        .iter()
        .filter_map(|o| Some((text(o, "optionId")?, text(o, "kind")?)))
        .collect();
    Some((call, options))
}

/// What Tandem reads of the agent's `initialize` answer.
#[derive(Default, Clone, Copy)]
pub struct Capabilities {
    pub load_session: bool,
    pub resume: bool,
    pub mcp: McpCapabilities,
}

#[derive(Default, Clone, Copy)]
pub struct McpCapabilities {
    pub http: bool,
    pub sse: bool,
}

impl Capabilities {
    pub fn read(answer: &Value) -> Self {
        let caps = &answer["agentCapabilities"];
        let flag = |v: &Value| v.as_bool().unwrap_or(false);
        Self {
            load_session: flag(&caps["loadSession"]),
            resume: !caps["sessionCapabilities"]["resume"].is_null(),
            mcp: McpCapabilities {
                http: flag(&caps["mcpCapabilities"]["http"]),
                sse: flag(&caps["mcpCapabilities"]["sse"]),
            },
        }
    }
}

#[cfg(test)]
mod tests;
