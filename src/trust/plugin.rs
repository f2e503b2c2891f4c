//! A Claude Code plugin is trusted as a folder is: its hooks and MCP servers start nothing
//! until the person trusts the plugin as it is (what it starts, and the files those run).

use std::path::{Path, PathBuf};

use super::{Assessment, Inventory, Subject, assess_as, folder_of};
use crate::config::plugins::Plugin;
use crate::config::restrict::{Brought, BroughtKind, hook_commands};
use crate::config::{McpConfig, Standing};

/// The plugin as it is now, and what the person said of exactly that.
pub fn assess(plugin: &Plugin) -> Assessment {
    assess_as(
        folder_of(&plugin.root),
        inventory(plugin),
        Subject::Plugin(plugin.name.clone()),
    )
}

/// The plugins that load for a workspace of `folders`, each with its standing now.
pub fn standings(folders: &[&Path]) -> Vec<(Plugin, Standing)> {
    crate::config::plugins::enabled(folders)
        .into_iter()
        .map(|plugin| {
            let standing = assess(&plugin).standing();
            (plugin, standing)
        })
        .collect()
}

/// What the plugin would start: its hooks and its MCP servers, with the files inside it
/// they run (`${CLAUDE_PLUGIN_ROOT}` read as its folder).
pub fn inventory(plugin: &Plugin) -> Inventory {
    let relative =
        |file: &Path| -> PathBuf { file.strip_prefix(&plugin.root).unwrap_or(file).to_owned() };
    let mut brought = Vec::new();
    for (hooks, file) in plugin.hooks().into_iter().flatten() {
        for (event, command) in hook_commands(&hooks) {
            brought.push(Brought {
                kind: BroughtKind::Hook,
                name: event,
                detail: command,
                source: relative(&file),
            });
        }
    }
    for (name, config, file) in plugin.servers().into_iter().flatten() {
        let detail = match config {
            McpConfig::Local { command, .. } => command.join(" "),
            McpConfig::Remote { url, .. } => url,
        };
        brought.push(Brought {
            kind: BroughtKind::McpServer,
            name,
            detail,
            source: relative(&file),
        });
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for item in &brought {
        for file in crate::config::runs::files_run_by(&plugin.expand(&item.detail), &plugin.root) {
            if !files.iter().any(|(f, _)| *f == file)
                && let Some(digest) = crate::config::digest_of(&file)
            {
                files.push((file, digest));
            }
        }
    }
    brought.sort();
    files.sort();
    Inventory { brought, files }
}
