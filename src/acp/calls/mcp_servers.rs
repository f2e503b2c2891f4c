//! The editor's `mcpServers` (in `session/new`, `load`, `resume`) as the servers a session
//! connects: stdio, Streamable HTTP and SSE entries, names and environments as given.

use agent_client_protocol::v1::schema::McpServer;

use crate::mcp::spec::DEFAULT_TIMEOUT;
use crate::mcp::{McpServerSpec, McpTransport};

pub fn specs(servers: Vec<McpServer>) -> Vec<McpServerSpec> {
    servers
        .into_iter()
        .filter_map(|server| {
            let (name, transport) = match server {
                McpServer::Stdio(s) => (
                    s.name,
                    McpTransport::Stdio {
                        command: s.command.to_string_lossy().into_owned(),
                        args: s.args,
                        env: s.env.into_iter().map(|v| (v.name, v.value)).collect(),
                    },
                ),
                McpServer::Http(s) => (
                    s.name,
                    McpTransport::Http {
                        url: s.url,
                        headers: s.headers.into_iter().map(|h| (h.name, h.value)).collect(),
                    },
                ),
                McpServer::Sse(s) => (
                    s.name,
                    McpTransport::Sse {
                        url: s.url,
                        headers: s.headers.into_iter().map(|h| (h.name, h.value)).collect(),
                    },
                ),
                _ => return None,
            };
            Some(McpServerSpec {
                name,
                transport,
                timeout: DEFAULT_TIMEOUT,
                sandbox: None,
                login: Default::default(),
            })
        })
        .collect()
}
