//! Where a session's MCP servers come from: the editor's (`session/new`, `load`, `resume`),
//! then the project's `tandem.json` `mcp` block (OpenCode's shape). The same server offered by
//! both (same name, or same command or URL) is started once, as the editor gave it.

use std::time::Duration;

use indexmap::IndexMap;

use crate::config::{McpConfig, McpOAuth, McpSandbox, SandboxConfig};

/// How long a server may take to connect and list its tools, unless its config says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// One MCP server to connect.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerSpec {
    pub name: String,
    pub transport: McpTransport,
    pub timeout: Duration,
    /// Start it sandboxed, with these keys (the session's, with the entry's over them).
    pub sandbox: Option<SandboxConfig>,
    /// Whether and how to log in when it asks (a remote server's 401).
    pub login: Login,
}

/// Logging in to a server that asks (OAuth).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Login {
    Off,
    /// Tandem registers itself with the authorization server.
    #[default]
    Auto,
    /// As a client registered beforehand.
    Client {
        id: String,
        secret: Option<String>,
        scopes: Vec<String>,
    },
}

impl Login {
    fn from_config(oauth: &Option<McpOAuth>) -> Self {
        match oauth {
            None | Some(McpOAuth::On(true)) => Login::Auto,
            Some(McpOAuth::On(false)) => Login::Off,
            Some(McpOAuth::Client {
                client_id,
                client_secret,
                scope,
            }) => Login::Client {
                id: client_id.clone(),
                secret: client_secret.clone(),
                scopes: scope
                    .as_deref()
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect(),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum McpTransport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// The older HTTP+SSE transport.
    Sse {
        url: String,
        headers: Vec<(String, String)>,
    },
}

impl McpTransport {
    /// What makes two entries the same server: the command line, or the URL.
    fn identity(&self) -> String {
        match self {
            McpTransport::Stdio { command, args, .. } => format!("{command} {}", args.join(" ")),
            McpTransport::Http { url, .. } | McpTransport::Sse { url, .. } => url.clone(),
        }
    }
}

/// The enabled servers of the config's `mcp` block; `base` is the config's own sandbox keys.
pub fn from_config(
    config: &IndexMap<String, McpConfig>,
    base: Option<&SandboxConfig>,
) -> Vec<McpServerSpec> {
    let timeout = |ms: &Option<u64>| ms.map(Duration::from_millis).unwrap_or(DEFAULT_TIMEOUT);
    config
        .iter()
        .filter_map(|(name, entry)| match entry {
            McpConfig::Local {
                command,
                environment,
                enabled,
                timeout: ms,
                sandbox,
            } if *enabled != Some(false) => {
                let (program, args) = command.split_first()?;
                let sandbox = match sandbox {
                    None | Some(McpSandbox::On(false)) => None,
                    Some(McpSandbox::On(true)) => Some(base.cloned().unwrap_or_default()),
                    Some(McpSandbox::With(own)) => Some(crate::sandbox::layered(Some(own), base)),
                };
                Some(McpServerSpec {
                    name: name.clone(),
                    transport: McpTransport::Stdio {
                        command: program.clone(),
                        args: args.to_vec(),
                        env: environment
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    },
                    timeout: timeout(ms),
                    sandbox,
                    login: Login::Off,
                })
            }
            McpConfig::Remote {
                url,
                headers,
                enabled,
                timeout: ms,
                oauth,
            } if *enabled != Some(false) => Some(McpServerSpec {
                name: name.clone(),
                transport: McpTransport::Http {
                    url: url.clone(),
                    headers: headers
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                },
                timeout: timeout(ms),
                sandbox: None,
                login: Login::from_config(oauth),
            }),
            _ => None,
        })
        .collect()
}

/// The MCP servers of the trusted Claude Code plugins, each named as Claude Code names it
/// (`plugin_<plugin>_<server>`).
pub fn from_plugins(
    plugins: &[(crate::config::plugins::Plugin, crate::config::Standing)],
    base: Option<&SandboxConfig>,
) -> Vec<McpServerSpec> {
    let servers: IndexMap<String, McpConfig> = (plugins.iter())
        .filter(|(_, standing)| standing.is_trusted())
        .flat_map(|(plugin, _)| {
            (plugin.servers().into_iter().flatten())
                .map(|(name, config, _)| (format!("plugin_{}_{name}", plugin.name), config))
        })
        .collect();
    from_config(&servers, base)
}

/// The editor's servers, then the config's that are not already among them.
pub fn merge(editor: Vec<McpServerSpec>, config: Vec<McpServerSpec>) -> Vec<McpServerSpec> {
    let mut servers = editor;
    for spec in config {
        let same = servers
            .iter()
            .any(|s| s.name == spec.name || s.transport.identity() == spec.transport.identity());
        if !same {
            servers.push(spec);
        }
    }
    servers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn config_servers_join_the_editors_once() {
        let config = Config::from_json_str(
            r#"{"mcp": {
                "echo": {"type": "local", "command": ["echo-server", "--fast"], "environment": {"K": "v"}, "timeout": 5000},
                "off": {"type": "local", "command": ["x"], "enabled": false},
                "docs": {"type": "remote", "url": "http://127.0.0.1:9/mcp"},
                "again": {"type": "local", "command": ["tool-server"]}}}"#,
        )
        .unwrap();
        let from_config = from_config(&config.mcp, None);
        assert_eq!(from_config.len(), 3);
        assert_eq!(from_config[0].timeout, Duration::from_millis(5000));
        let editor = vec![McpServerSpec {
            name: "tools".into(),
            transport: McpTransport::Stdio {
                command: "tool-server".into(),
                args: vec![],
                env: vec![],
            },
            timeout: DEFAULT_TIMEOUT,
            sandbox: None,
            login: Login::Off,
        }];
        let merged = merge(editor, from_config);
        let names: Vec<&str> = merged.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["tools", "echo", "docs"]);
    }
}
