//! Everything a folder brings that would start a program or widen the rules: its config's
//! servers, formatters, tools, agents and hooks, Claude Code's hooks, and programs in its
//! `node_modules/.bin` or virtualenv that Tandem would start; with the fingerprint the
//! person's answer is kept under.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::restrict::{self, Brought, BroughtKind};
use crate::config::{digest_of, hex};

/// Where a project keeps programs that would be found before, or instead of, the person's.
pub const PROJECT_BIN_DIRS: [&str; 3] = ["node_modules/.bin", ".venv/bin", "venv/bin"];

/// What a folder brings, and the files inside it those programs run (with their digests).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inventory {
    pub brought: Vec<Brought>,
    /// Real paths inside the project (scripts the commands name, programs found there), each
    /// with the SHA-256 of its content.
    pub files: Vec<(PathBuf, String)>,
}

impl Inventory {
    /// What the folder `cwd` brings, read from its files now.
    pub fn of(cwd: &Path) -> Self {
        let mut brought = Vec::new();
        if let Some(path) = crate::config::project_file(cwd)
            && let Ok(Some(mut value)) = read_raw(&path)
        {
            brought.extend(restrict::project_config(
                &mut value,
                Path::new("tandem.json"),
            ));
            if !crate::config::load::env_names(&value).is_empty() {
                brought.push(Brought {
                    kind: BroughtKind::Environment,
                    name: String::new(),
                    detail: "`{env:…}` placeholders".into(),
                    source: "tandem.json".into(),
                });
            }
        }
        brought.extend(opencode_agents(cwd));
        for dir in [".opencode/agent", ".tandem/agent"] {
            brought.extend(markdown_agents(cwd, dir));
        }
        brought.extend(tool_files(cwd));
        for file in [".claude/settings.json", ".claude/settings.local.json"] {
            if let Ok(Some(value)) = read_raw(&cwd.join(file))
                && let Some(hooks) = value.get("hooks")
            {
                for (event, command) in restrict::hook_commands(hooks) {
                    brought.push(Brought {
                        kind: BroughtKind::Hook,
                        name: event,
                        detail: command,
                        source: file.into(),
                    });
                }
            }
        }
        let mut files: Vec<(PathBuf, String)> = Vec::new();
        for item in brought.iter().filter(|b| b.kind.starts_a_program()) {
            for file in crate::config::runs::files_run_by(&item.detail, cwd) {
                push_file(&mut files, file);
            }
        }
        let programs = project_programs(cwd, &brought);
        for (name, path) in programs {
            brought.push(Brought {
                kind: BroughtKind::ProjectProgram,
                name,
                detail: crate::paths::relative_to(cwd, &path),
                source: path
                    .parent()
                    .map(|p| PathBuf::from(crate::paths::relative_to(cwd, p)))
                    .unwrap_or_default(),
            });
            push_file(&mut files, path);
        }
        brought.sort();
        brought.dedup();
        files.sort();
        Self { brought, files }
    }

    pub fn is_empty(&self) -> bool {
        self.brought.is_empty()
    }

    /// What the person's answer is kept under: every item and the content of every file it
    /// runs in the project. Any change gives another fingerprint.
    pub fn fingerprint(&self) -> String {
        let mut text = String::new();
        for item in &self.brought {
            text.push_str(&format!(
                "{:?}\0{}\0{}\0{}\n",
                item.kind,
                item.name,
                item.detail,
                item.source.display()
            ));
        }
        for (path, digest) in &self.files {
            text.push_str(&format!("{}\0{digest}\n", path.display()));
        }
        hex(ring::digest::digest(&ring::digest::SHA256, text.as_bytes()).as_ref())
    }

    /// One line per item, for the person.
    pub fn lines(&self) -> Vec<String> {
        self.brought.iter().map(Brought::line).collect()
    }
}

fn push_file(files: &mut Vec<(PathBuf, String)>, path: PathBuf) {
    if files.iter().any(|(p, _)| *p == path) {
        return;
    }
    if let Some(digest) = digest_of(&path) {
        files.push((path, digest));
    }
}

/// A JSON file with comments, as written (no placeholders expanded).
fn read_raw(path: &Path) -> Result<Option<Value>, crate::config::ConfigError> {
    crate::config::load::read_unexpanded(path)
}

/// The agent blocks of the project's `opencode.json`.
fn opencode_agents(cwd: &Path) -> Vec<Brought> {
    let Ok(Some(mut value)) = read_raw(&cwd.join("opencode.json")) else {
        return Vec::new();
    };
    let Some(Value::Object(agents)) = value.get_mut("agent") else {
        return Vec::new();
    };
    agents
        .iter_mut()
        .flat_map(|(name, block)| restrict::agent_block(name, block, Path::new("opencode.json")))
        .collect()
}

/// The frontmatter of each Markdown agent in `cwd/dir`.
fn markdown_agents(cwd: &Path, dir: &str) -> Vec<Brought> {
    let mut found = Vec::new();
    for (name, path) in crate::config::markdown::files(&cwd.join(dir)) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if let Ok((mut front, _)) = crate::config::markdown::split(&text) {
            let source = PathBuf::from(format!("{dir}/{name}.md"));
            found.extend(restrict::agent_block(&name, &mut front, &source));
        }
    }
    found
}

/// Each tool of `.tandem/tool/*.json`.
fn tool_files(cwd: &Path) -> Vec<Brought> {
    crate::extension::custom_tool::files(cwd)
        .into_iter()
        .map(|path| {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let detail = read_raw(&path)
                .ok()
                .flatten()
                .and_then(|v| restrict::command_of(&v))
                .unwrap_or_else(|| "(no command)".into());
            Brought {
                kind: BroughtKind::CustomTool,
                name: name.clone(),
                detail,
                source: PathBuf::from(format!(".tandem/tool/{name}.json")),
            }
        })
        .collect()
}

/// Programs in the project's own folders that Tandem would start by name: the built-in
/// language servers and formatters, and the external agents' commands. `(name, real path)`.
fn project_programs(cwd: &Path, brought: &[Brought]) -> Vec<(String, PathBuf)> {
    let mut names: Vec<String> = crate::lsp::builtin_programs()
        .into_iter()
        .map(str::to_owned)
        .collect();
    names.extend(
        brought
            .iter()
            .filter(|b| b.kind == BroughtKind::ExternalAgent)
            .filter_map(|b| b.detail.split_whitespace().next().map(str::to_owned)),
    );
    names.extend(person_agent_programs(cwd));
    let mut found = Vec::new();
    for dir in PROJECT_BIN_DIRS {
        for name in &names {
            if name.contains('/') {
                continue;
            }
            let candidate = cwd.join(dir).join(name);
            if is_executable(&candidate)
                && let Ok(real) = std::fs::canonicalize(&candidate)
                && !found.iter().any(|(_, p)| *p == real)
            {
                found.push((name.clone(), real));
            }
        }
    }
    found
}

/// The programs of the person's own external agents (their config, untrusted view), which a
/// project's folders could otherwise stand in for.
fn person_agent_programs(cwd: &Path) -> Vec<String> {
    let Ok(loaded) = crate::config::load(cwd) else {
        return Vec::new();
    };
    loaded
        .config
        .agent
        .values()
        .filter_map(|a| a.acp.as_ref())
        .filter_map(|acp| acp.command.first().cloned())
        .collect()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
