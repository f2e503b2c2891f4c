//! The Claude Code plugins the person installed (`~/.claude/plugins/installed_plugins.json`,
//! or under `CLAUDE_CONFIG_DIR`), less those its settings turn off (`enabledPlugins`): each
//! with its folder and manifest (`.claude-plugin/plugin.json`), and where its skills and
//! commands are (the manifest's paths, else the plugin's `skills/` and `commands/`).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// An installed plugin.
#[derive(Debug, Clone, PartialEq)]
pub struct Plugin {
    /// Its name (`name` in its manifest), which its commands are prefixed with.
    pub name: String,
    /// `name@marketplace`, as Claude Code keys it.
    pub key: String,
    pub root: PathBuf,
    manifest: Value,
}

/// Where Claude Code keeps its files (`CLAUDE_CONFIG_DIR`, else `~/.claude`).
pub fn claude_home() -> Option<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".claude")),
    }
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// The plugins installed and not turned off, in the order their file lists them.
pub fn installed() -> Vec<Plugin> {
    let Some(home) = claude_home() else {
        return Vec::new();
    };
    let Some(list) = read_json(&home.join("plugins/installed_plugins.json")) else {
        return Vec::new();
    };
    let enabled = read_json(&home.join("settings.json")).unwrap_or_default();
    let Some(plugins) = list["plugins"].as_object() else {
        return Vec::new();
    };
    plugins
        .iter()
        .filter(|(key, _)| enabled["enabledPlugins"][key.as_str()] != false)
        .filter_map(|(key, entry)| {
            // Version 2 keeps a list of installs per plugin; version 1 one install.
            let install = entry.as_array().and_then(|a| a.first()).unwrap_or(entry);
            let root = PathBuf::from(install["installPath"].as_str()?);
            let manifest = read_json(&root.join(".claude-plugin/plugin.json")).unwrap_or_default();
            let name = manifest["name"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| key.split('@').next().map(str::to_owned))?;
            Some(Plugin {
                name,
                key: key.clone(),
                root,
                manifest,
            })
        })
        .collect()
}

impl Plugin {
    /// The folders of one kind of component: the manifest's (a path or a list, from the
    /// plugin's folder) or the default folder.
    fn folders(&self, key: &str, default: &str) -> Vec<PathBuf> {
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
        self.folders("skills", "skills")
    }

    /// Where its slash commands are (Markdown files, run as `/<plugin>:<command>`).
    pub fn command_dirs(&self) -> Vec<PathBuf> {
        self.folders("commands", "commands")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_manifest_names_folders_inside_its_plugin_only() {
        let plugin = |manifest: Value| Plugin {
            name: "p".into(),
            key: "p@m".into(),
            root: PathBuf::from("/plugins/p"),
            manifest,
        };
        assert_eq!(
            plugin(json!({})).skill_dirs(),
            [PathBuf::from("/plugins/p/skills")]
        );
        assert_eq!(
            plugin(json!({"commands": ["./cmds", "../../etc", "a/../../q"]})).command_dirs(),
            [PathBuf::from("/plugins/p/cmds")]
        );
    }
}
