//! The Claude Code plugins a workspace has: those installed for the person and those installed
//! for one of its folders (`installed_plugins.json`), less those settings turn off, each with
//! its folder and manifest; and why each other one was skipped. `parts.rs` reads what each brings.

mod parts;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use parts::{ROOT_VARIABLE, ServerEntry};

/// A plugin that loads.
#[derive(Debug, Clone, PartialEq)]
pub struct Plugin {
    /// Its name (`name` in its manifest), which its commands and agents are prefixed with.
    pub name: String,
    /// `name@marketplace`, as Claude Code keys it.
    pub key: String,
    /// Its folder, as a real path.
    pub root: PathBuf,
    pub scope: Scope,
    manifest: Value,
}

/// For whom a plugin was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The person: every project.
    User,
    /// One project (Claude Code's `project` and `local` scopes): that folder's sessions.
    Project(PathBuf),
}

/// A plugin listed as installed that does not load, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub key: String,
    pub reason: String,
}

/// The plugins of a workspace: those that load, in the order installed, and those skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    pub plugins: Vec<Plugin>,
    pub skipped: Vec<Skipped>,
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

/// The plugins that load for a workspace of `folders`.
pub fn enabled(folders: &[&Path]) -> Vec<Plugin> {
    found(folders).plugins
}

/// Every plugin installed for the person or for one of `folders`, loaded or skipped.
pub fn found(folders: &[&Path]) -> Found {
    claude_home().map_or_else(Found::default, |home| found_in(&home, folders))
}

/// `found` with Claude Code's files in `home`.
fn found_in(home: &Path, folders: &[&Path]) -> Found {
    let mut found = Found::default();
    let Some(list) = read_json(&home.join("plugins/installed_plugins.json")) else {
        return found;
    };
    let Some(plugins) = list["plugins"].as_object() else {
        return found;
    };
    let folders: Vec<PathBuf> = folders.iter().map(|f| real(f)).collect();
    let switches = Switches::read(home, &folders);
    for (key, entry) in plugins {
        match load(key, entry, &folders, &switches) {
            Ok(plugin) => found.plugins.push(plugin),
            Err(reason) => found.skipped.push(Skipped {
                key: key.clone(),
                reason,
            }),
        }
    }
    found
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// One plugin of the list, or why it does not load.
fn load(
    key: &str,
    entry: &Value,
    folders: &[PathBuf],
    switches: &Switches,
) -> Result<Plugin, String> {
    // Version 2 keeps a list of installs per plugin (one per scope); version 1 one install.
    let installs: Vec<&Value> = match entry.as_array() {
        Some(list) => list.iter().collect(),
        None => vec![entry],
    };
    let mut elsewhere = None;
    let mut chosen = None;
    for install in installs {
        match install["scope"].as_str() {
            Some("project" | "local") => {
                let at = real(Path::new(
                    install["projectPath"].as_str().unwrap_or_default(),
                ));
                if folders.contains(&at) {
                    chosen = Some((install, Scope::Project(at)));
                    break;
                }
                elsewhere = Some(at);
            }
            _ => {
                chosen.get_or_insert((install, Scope::User));
            }
        }
    }
    let Some((install, scope)) = chosen else {
        let at = elsewhere
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return Err(format!("installed for another project ({at})"));
    };
    if let Some(file) = switches.turned_off(key) {
        return Err(format!("turned off in {}", file.display()));
    }
    let root = PathBuf::from(install["installPath"].as_str().unwrap_or_default());
    if !root.is_dir() {
        return Err(format!("its folder {} is not there", root.display()));
    }
    let root = real(&root);
    let manifest_path = root.join(".claude-plugin/plugin.json");
    let manifest = match std::fs::read_to_string(&manifest_path) {
        Err(_) => Value::Null,
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            format!("its manifest .claude-plugin/plugin.json is not valid JSON: {e}")
        })?,
    };
    let name = (manifest["name"].as_str())
        .or_else(|| key.split('@').next())
        .filter(|n| !n.is_empty())
        .ok_or("it has no name")?
        .to_owned();
    Ok(Plugin {
        name,
        key: key.to_owned(),
        root,
        scope,
        manifest,
    })
}

/// `enabledPlugins` of the person's settings, then of each folder's (`.claude/settings.json`,
/// then `.claude/settings.local.json`): the last that names a plugin decides.
struct Switches {
    said: Vec<(PathBuf, Value)>,
}

impl Switches {
    fn read(home: &Path, folders: &[PathBuf]) -> Self {
        let mut files = vec![home.join("settings.json")];
        for folder in folders {
            files.push(folder.join(".claude/settings.json"));
            files.push(folder.join(".claude/settings.local.json"));
        }
        let said = files
            .into_iter()
            .filter_map(|file| {
                let switches = read_json(&file)?.get("enabledPlugins")?.clone();
                Some((file, switches))
            })
            .collect();
        Self { said }
    }

    /// The file that turned `key` off, when the last word on it is `false`.
    fn turned_off(&self, key: &str) -> Option<&Path> {
        let (file, last) = self
            .said
            .iter()
            .rev()
            .find_map(|(file, switches)| switches.get(key).map(|on| (file, on)))?;
        (*last == false).then_some(file.as_path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_projects_plugins_load_in_that_project_and_its_settings_have_the_last_word() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join(".claude");
        let (here, there) = (dir.path().join("here"), dir.path().join("there"));
        for folder in [&here, &there] {
            std::fs::create_dir_all(folder.join(".claude")).unwrap();
        }
        let mut plugins = serde_json::Map::new();
        for name in ["mine", "team", "gone"] {
            let root = home.join("plugins/cache/m").join(name);
            if name != "gone" {
                std::fs::create_dir_all(&root).unwrap();
            }
            let install = match name {
                "team" => json!({"scope": "project", "projectPath": here, "installPath": root}),
                _ => json!({"scope": "user", "installPath": root}),
            };
            plugins.insert(format!("{name}@m"), json!([install]));
        }
        std::fs::write(
            home.join("plugins/installed_plugins.json"),
            json!({"version": 2, "plugins": plugins}).to_string(),
        )
        .unwrap();
        let local = there.join(".claude/settings.local.json");
        std::fs::write(
            &local,
            json!({"enabledPlugins": {"mine@m": false}}).to_string(),
        )
        .unwrap();

        let in_here = found_in(&home, &[&here]);
        let names: Vec<&str> = in_here.plugins.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["mine", "team"]);
        assert_eq!(in_here.plugins[1].scope, Scope::Project(real(&here)));
        assert_eq!(in_here.skipped[0].key, "gone@m");
        assert!(in_here.skipped[0].reason.ends_with("is not there"));

        let in_there = found_in(&home, &[&there]);
        assert!(in_there.plugins.is_empty());
        let reasons: Vec<String> = in_there.skipped.iter().map(|s| s.reason.clone()).collect();
        assert_eq!(
            reasons[0],
            format!(
                "turned off in {}",
                real(&there).join(".claude/settings.local.json").display()
            )
        );
        assert_eq!(
            reasons[1],
            format!("installed for another project ({})", real(&here).display())
        );
    }
}
