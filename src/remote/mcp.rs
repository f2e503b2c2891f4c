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
    let headers = |headers: &[(String, String)]| {
        headers
            .iter()
            .map(|(n, v)| HttpHeader::new(n.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    specs
        .iter()
        .filter(|spec| spec.sandbox.is_none())
        .filter_map(|spec| match &spec.transport {
            McpTransport::Stdio { command, args, env } => Some(McpServer::Stdio(
                McpServerStdio::new(spec.name.clone(), command)
                    .args(args.clone())
                    .env(
                        env.iter()
                            .map(|(n, v)| EnvVariable::new(n.clone(), v.clone()))
                            .collect(),
                    ),
            )),
            McpTransport::Http { url, headers: h } if can.http => Some(McpServer::Http(
                McpServerHttp::new(spec.name.clone(), url.clone()).headers(headers(h)),
            )),
            McpTransport::Sse { url, headers: h } if can.sse => Some(McpServer::Sse(
                McpServerSse::new(spec.name.clone(), url.clone()).headers(headers(h)),
            )),
            _ => None,
        })
        .collect()
}
