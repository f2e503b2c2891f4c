//! The caller's MCP servers, handed to an external agent's session as ACP describes them:
//! stdio ones always, HTTP and SSE ones when the agent says it can reach them. A server the
//! caller runs sandboxed is not handed over: the agent would start it outside the sandbox.

use serde_json::{Value, json};

use super::wire::McpCapabilities;
use crate::mcp::{McpServerSpec, McpTransport};

/// `specs` as the agent can take them.
pub fn servers(specs: &[McpServerSpec], can: McpCapabilities) -> Vec<Value> {
    let pairs = |pairs: &[(String, String)]| -> Vec<Value> {
        pairs
            .iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect()
    };
    specs
        .iter()
        .filter(|spec| spec.sandbox.is_none())
        .filter_map(|spec| match &spec.transport {
            McpTransport::Stdio { command, args, env } => Some(json!({
                "name": spec.name, "command": command, "args": args, "env": pairs(env)
            })),
            McpTransport::Http { url, headers } if can.http => Some(json!({
                "type": "http", "name": spec.name, "url": url, "headers": pairs(headers)
            })),
            McpTransport::Sse { url, headers } if can.sse => Some(json!({
                "type": "sse", "name": spec.name, "url": url, "headers": pairs(headers)
            })),
            _ => None,
        })
        .collect()
}
