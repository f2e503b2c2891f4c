//! The caller's MCP servers, handed to an external agent's session as ACP describes them:
//! stdio ones always, HTTP and SSE ones when the agent says it can reach them. A server the
//! caller runs sandboxed is not handed over: the agent would start it outside the sandbox.

use agent_client_protocol::v1::schema::{
    EnvVariable, HttpHeader, McpCapabilities, McpServer, McpServerHttp, McpServerSse,
    McpServerStdio,
};

use crate::mcp::{McpServerSpec, McpTransport};

/// `specs` as the agent can take them.
pub fn servers(specs: &[McpServerSpec], can: &McpCapabilities) -> Vec<McpServer> {
    let headers = |pairs: &[(String, String)]| -> Vec<HttpHeader> {
        pairs
            .iter()
            .map(|(name, value)| HttpHeader::new(name, value))
            .collect()
    };
    specs
        .iter()
        .filter(|spec| spec.sandbox.is_none())
        .filter_map(|spec| match &spec.transport {
            McpTransport::Stdio { command, args, env } => Some(McpServer::Stdio(
                McpServerStdio::new(&spec.name, command)
                    .args(args.clone())
                    .env(
                        env.iter()
                            .map(|(name, value)| EnvVariable::new(name, value))
                            .collect(),
                    ),
            )),
            McpTransport::Http { url, headers: h } if can.http => Some(McpServer::Http(
                McpServerHttp::new(&spec.name, url).headers(headers(h)),
            )),
            McpTransport::Sse { url, headers: h } if can.sse => Some(McpServer::Sse(
                McpServerSse::new(&spec.name, url).headers(headers(h)),
            )),
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
            login: Default::default(),
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
        let names = |can: &McpCapabilities| -> Vec<String> {
            servers(&specs, can)
                .iter()
                .map(|s| {
                    serde_json::to_value(s).unwrap()["name"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                })
                .collect()
        };
        assert_eq!(names(&McpCapabilities::new()), ["local"]);
        let with_http = McpCapabilities::new().http(true);
        assert_eq!(names(&with_http), ["web", "local"]);
        let local = serde_json::to_value(&servers(&specs, &with_http)[1]).unwrap();
        assert_eq!(
            local,
            serde_json::json!({"name": "local", "command": "srv", "args": ["-v"],
                   "env": [{"name": "K", "value": "V"}]})
        );
    }
}
