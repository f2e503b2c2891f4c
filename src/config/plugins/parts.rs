//! What one plugin brings, found where Claude Code finds it: the manifest's paths (a path or a
//! list, inside the plugin) or the default folders and files; hooks and MCP servers may also be
//! written in the manifest itself. `${CLAUDE_PLUGIN_ROOT}` names the plugin's folder.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::Value;

use super::{Plugin, read_json};
use crate::config::McpConfig;

/// The variable a plugin's hooks and servers name its folder by.
pub const ROOT_VARIABLE: &str = "CLAUDE_PLUGIN_ROOT";

/// One MCP server a plugin brings: its name, as Tandem configures it, and the file it is in.
pub type ServerEntry = (String, McpConfig, PathBuf);

impl Plugin {
    /// The paths the manifest gives for `key` (a path or a list, from the plugin's folder), or
    /// `default`; none outside the plugin's folder.
    fn paths(&self, key: &str, default: &str) -> Vec<PathBuf> {
        let named: Vec<&str> = match &self.manifest[key] {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![default],
        };
        named
            .into_iter()
            // `..` resolved first: a manifest cannot point outside its plugin's folder.
            .map(|p| crate::paths::resolve_in(&self.root, p))
            .filter(|p| p.starts_with(&self.root))
            .collect()
    }

    /// Where its skills are (each a folder with a `SKILL.md`).
    pub fn skill_dirs(&self) -> Vec<PathBuf> {
        self.paths("skills", "skills")
    }

    /// Where its slash commands are (Markdown files, run as `/<plugin>:<command>`).
    pub fn command_dirs(&self) -> Vec<PathBuf> {
        self.paths("commands", "commands")
    }

    /// Where its agents are (Markdown files, Tandem's subagents `<plugin>:<agent>`).
    pub fn agent_dirs(&self) -> Vec<PathBuf> {
        self.paths("agents", "agents")
    }

    /// `text` with `${CLAUDE_PLUGIN_ROOT}` as the plugin's folder.
    pub fn expand(&self, text: &str) -> String {
        text.replace(
            &format!("${{{ROOT_VARIABLE}}}"),
            &self.root.display().to_string(),
        )
    }

    /// Its hooks, as Claude Code writes them (`{"PreToolUse": [...]}`), each with the file
    /// they are in: the manifest's own `hooks` object, or the files it names, or
    /// `hooks/hooks.json`. A file that cannot be read is an error naming it.
    pub fn hooks(&self) -> Vec<Result<(Value, PathBuf), String>> {
        if let Some(inline) = self.manifest.get("hooks").filter(|h| h.is_object()) {
            let own = inline.get("hooks").unwrap_or(inline).clone();
            return vec![Ok((own, self.manifest_path()))];
        }
        (self.paths("hooks", "hooks/hooks.json").into_iter())
            .filter(|file| file.exists() || self.manifest.get("hooks").is_some())
            .map(|file| {
                let value = read_json(&file).ok_or_else(|| self.unreadable(&file))?;
                Ok((value.get("hooks").cloned().unwrap_or(value), file))
            })
            .collect()
    }

    /// Its MCP servers: the manifest's own `mcpServers` object, or the files it names, or
    /// `.mcp.json`; `${CLAUDE_PLUGIN_ROOT}` expanded in each. An entry Tandem cannot start
    /// is an error naming it.
    pub fn servers(&self) -> Vec<Result<ServerEntry, String>> {
        let mut sources = Vec::new();
        if let Some(inline) = self.manifest.get("mcpServers").filter(|m| m.is_object()) {
            sources.push(Ok((inline.clone(), self.manifest_path())));
        } else {
            for file in self.paths("mcpServers", ".mcp.json") {
                if file.exists() || self.manifest.get("mcpServers").is_some() {
                    sources.push(
                        read_json(&file)
                            .map(|v| (v, file.clone()))
                            .ok_or_else(|| self.unreadable(&file)),
                    );
                }
            }
        }
        let mut servers = Vec::new();
        for source in sources {
            let (value, file) = match source {
                Ok(found) => found,
                Err(why) => {
                    servers.push(Err(why));
                    continue;
                }
            };
            let entries = value.get("mcpServers").unwrap_or(&value);
            for (name, entry) in entries.as_object().into_iter().flatten() {
                servers.push(
                    self.server(entry)
                        .map(|config| (name.clone(), config, file.clone()))
                        .map_err(|why| format!("MCP server `{name}`: {why}")),
                );
            }
        }
        servers
    }

    /// One `.mcp.json` entry as Tandem's config: `command` and `args` (a local server) or
    /// `type` `http`/`sse` with `url` and `headers`.
    fn server(&self, entry: &Value) -> Result<McpConfig, String> {
        let text = |v: &Value| v.as_str().map(|s| self.expand(s));
        let pairs = |key: &str| -> IndexMap<String, String> {
            (entry[key].as_object().into_iter().flatten())
                .filter_map(|(k, v)| Some((k.clone(), text(v)?)))
                .collect()
        };
        if let Some(url) = text(&entry["url"]) {
            return Ok(McpConfig::Remote {
                url,
                headers: pairs("headers"),
                enabled: None,
                timeout: None,
                oauth: None,
            });
        }
        let command = text(&entry["command"]).ok_or("it names neither a command nor a URL")?;
        let mut line = vec![command];
        line.extend(
            entry["args"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(text),
        );
        let mut environment = pairs("env");
        environment.insert(ROOT_VARIABLE.into(), self.root.display().to_string());
        Ok(McpConfig::Local {
            command: line,
            environment,
            enabled: None,
            timeout: None,
            sandbox: None,
        })
    }

    fn manifest_path(&self) -> PathBuf {
        self.root.join(".claude-plugin/plugin.json")
    }

    fn unreadable(&self, file: &Path) -> String {
        format!(
            "{} cannot be read as JSON",
            file.strip_prefix(&self.root).unwrap_or(file).display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::plugins::Scope;
    use serde_json::json;

    fn plugin(root: &Path, manifest: Value) -> Plugin {
        Plugin {
            name: "p".into(),
            key: "p@m".into(),
            root: root.to_owned(),
            scope: Scope::User,
            manifest,
        }
    }

    #[test]
    fn a_manifest_names_folders_inside_its_plugin_only() {
        let root = Path::new("/plugins/p");
        assert_eq!(
            plugin(root, json!({})).skill_dirs(),
            [PathBuf::from("/plugins/p/skills")]
        );
        assert_eq!(
            plugin(
                root,
                json!({"commands": ["./cmds", "../../etc", "a/../../q"]})
            )
            .command_dirs(),
            [PathBuf::from("/plugins/p/cmds")]
        );
    }

    #[test]
    fn servers_have_the_plugin_root_expanded_and_bad_entries_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".mcp.json"),
            json!({"mcpServers": {
                "db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"]},
                "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
                "odd": {"args": []}}})
            .to_string(),
        )
        .unwrap();
        let servers = plugin(dir.path(), json!({})).servers();
        let root = dir.path().display().to_string();
        let Ok((
            name,
            McpConfig::Local {
                command,
                environment,
                ..
            },
            _,
        )) = &servers[0]
        else {
            panic!("{servers:?}")
        };
        assert_eq!(name, "db");
        assert_eq!(
            command,
            &[format!("{root}/bin/db"), "--root".into(), root.clone()]
        );
        assert_eq!(environment[ROOT_VARIABLE], root);
        assert!(matches!(&servers[1], Ok((_, McpConfig::Remote { .. }, _))));
        assert_eq!(
            servers[2],
            Err("MCP server `odd`: it names neither a command nor a URL".into())
        );
    }
}
