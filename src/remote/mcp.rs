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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn spec(name: &str, transport: McpTransport, sandboxed: bool) -> McpServerSpec {
        McpServerSpec {
            name: name.into(),
            transport,
            timeout: Duration::from_secs(1),
            sandbox: sandboxed.then(Default::default),
        }
    }

    #[test]
    fn http_goes_only_to_an_agent_that_can_reach_it_and_sandboxed_servers_never() {
        let http = McpTransport::Http {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: vec![("x".into(), "y".into())],
        };
        let stdio = McpTransport::Stdio {
            command: "srv".into(),
            args: vec!["-v".into()],
            env: vec![("K".into(), "V".into())],
        };
        let specs = [
            spec("web", http, false),
            spec("local", stdio.clone(), false),
            spec("boxed", stdio, true),
        ];
        let names = |can: McpCapabilities| -> Vec<String> {
            servers(&specs, can)
                .iter()
                .map(|s| s["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(names(McpCapabilities::default()), ["local"]);
        let with_http = McpCapabilities {
            http: true,
            sse: false,
        };
        assert_eq!(names(with_http), ["web", "local"]);
        let local = &servers(&specs, with_http)[1];
        assert_eq!(
            *local,
            json!({"name": "local", "command": "srv", "args": ["-v"],
                   "env": [{"name": "K", "value": "V"}]})
        );
    }
}
