//! Hooks: the person's commands run around the agent's work, in Claude Code's shape. This
//! module finds them (whose they are, and in which dialect), matches them to an event.

mod matcher;
mod names;
mod reply;
mod run;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::config::HookMatcher;
use crate::config::plugins::{Plugin, ROOT_VARIABLE};

pub use names::{claude_input, subjects, tandem_input};
pub use reply::{Decision, Reply, Verdict};
pub use run::{HookRun, Ran, run};

/// How long a hook may run unless it says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The events hooks run on (Claude Code's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SubagentStop,
    SessionStart,
    SessionEnd,
    PreCompact,
    Notification,
}

impl HookEvent {
    pub const ALL: [HookEvent; 9] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SubagentStop,
        Self::SessionStart,
        Self::SessionEnd,
        Self::PreCompact,
        Self::Notification,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::PreCompact => "PreCompact",
            Self::Notification => "Notification",
        }
    }
}

/// Whose a hook is: the person's own run; the project's only in a folder the person trusts,
/// a plugin's only when the person trusts the plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Person,
    Project,
    Plugin,
}

/// How a hook is spoken to: Tandem's tool names and inputs, or Claude Code's (`Bash`,
/// `file_path`), for hooks read from Claude's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Tandem,
    Claude,
}

/// One hook, ready to match and run.
#[derive(Debug, Clone)]
pub struct Hook {
    pub event: HookEvent,
    /// `None` matches everything.
    matcher: Option<matcher::Matcher>,
    /// The matcher as written.
    pub pattern: Option<String>,
    pub command: String,
    pub timeout: Duration,
    pub sandboxed: bool,
    pub origin: Origin,
    pub dialect: Dialect,
    /// The file it was read from.
    pub source: PathBuf,
    /// The workspace folder it runs in: the session's for the person's and a plugin's hooks,
    /// the folder it was read from for a project's.
    pub folder: PathBuf,
    /// The folder whose standing it runs under (the project folder, or the plugin's), with
    /// its command as read for the files it runs there (`${CLAUDE_PLUGIN_ROOT}` expanded).
    pub trusted_as: Option<(PathBuf, String)>,
    /// Variables it runs with besides the project's (a plugin's `CLAUDE_PLUGIN_ROOT`).
    pub env: Vec<(String, String)>,
}

impl Hook {
    /// Whether it runs for `subject` (a tool's names, a compaction's trigger, a session
    /// start's source); with no subject (events without one) the matcher is not consulted.
    pub fn matches(&self, subject: &[&str]) -> bool {
        match &self.matcher {
            Some(re) if !subject.is_empty() => subject.iter().any(|s| re.is_match(s)),
            _ => true,
        }
    }
}

/// The hooks that apply to a session, and what was wrong with those skipped.
#[derive(Debug, Clone, Default)]
pub struct HookSet {
    hooks: Vec<Hook>,
    pub problems: Vec<String>,
    /// Each workspace folder's standing when the set was read: a folder's hooks are in it only
    /// when it is trusted, and run only while the files they run are as the person trusted
    /// them.
    standings: Vec<(PathBuf, crate::config::Standing)>,
}

impl HookSet {
    /// The hooks for a session in `cwd`: the person's (`tandem.json` in the config folder,
    /// `TANDEM_CONFIG`, `~/.claude/settings.json`), then each workspace folder's (`tandem.json`,
    /// `.claude/settings.json`, `.claude/settings.local.json`) when that folder is trusted;
    /// `folders` lowest precedence first, the project last.
    pub fn load(
        cwd: &Path,
        folders: &[(&Path, &crate::config::Standing)],
        plugins: &[(Plugin, crate::config::Standing)],
    ) -> Self {
        let mut set = Self {
            standings: (folders.iter())
                .map(|(folder, standing)| (folder.to_path_buf(), (*standing).clone()))
                .chain(
                    plugins
                        .iter()
                        .map(|(p, standing)| (p.root.clone(), standing.clone())),
                )
                .collect(),
            ..Self::default()
        };
        let config_dir = crate::paths::config_dir();
        let mut person = vec![(config_dir.join("tandem.json"), Dialect::Tandem)];
        if let Some(extra) = std::env::var_os("TANDEM_CONFIG").filter(|v| !v.is_empty()) {
            person.push((PathBuf::from(extra), Dialect::Tandem));
        }
        if let Some(home) = crate::paths::home_dir() {
            person.push((home.join(".claude/settings.json"), Dialect::Claude));
        }
        let mut files: Vec<_> = (person.into_iter())
            .map(|(path, dialect)| (path, dialect, Origin::Person, cwd))
            .collect();
        for (folder, _) in folders.iter().filter(|(_, s)| s.is_trusted()) {
            files.extend(
                [
                    (folder.join("tandem.json"), Dialect::Tandem),
                    (folder.join(".claude/settings.json"), Dialect::Claude),
                    (folder.join(".claude/settings.local.json"), Dialect::Claude),
                ]
                .map(|(path, dialect)| (path, dialect, Origin::Project, *folder)),
            );
        }
        let mut seen = Vec::new();
        for (path, dialect, origin, folder) in files {
            // The same file twice (a project in the config folder) counts once, as the
            // person's.
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if seen.contains(&real) {
                continue;
            }
            seen.push(real);
            set.add_file(&path, origin, (dialect, folder));
        }
        for (plugin, _) in plugins.iter().filter(|(_, s)| s.is_trusted()) {
            set.add_plugin(plugin, cwd);
        }
        set
    }

    /// A trusted plugin's hooks, run in the session's folder with `CLAUDE_PLUGIN_ROOT` set.
    fn add_plugin(&mut self, plugin: &Plugin, cwd: &Path) {
        for found in plugin.hooks() {
            let (hooks, file) = match found {
                Ok(found) => found,
                Err(why) => {
                    self.problems.push(format!(
                        "plugin {}: {why}; its hooks are skipped",
                        plugin.name
                    ));
                    continue;
                }
            };
            let first = self.hooks.len();
            self.add_events(&hooks, &file, (Origin::Plugin, Dialect::Claude), cwd);
            for hook in &mut self.hooks[first..] {
                hook.trusted_as = Some((plugin.root.clone(), plugin.expand(&hook.command)));
                hook.env = vec![(ROOT_VARIABLE.into(), plugin.root.display().to_string())];
            }
        }
    }

    /// Whether there are any hooks at all (most sessions: none, and nothing to do).
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// The hooks of `event` that match `subject`, in the order they were read.
    pub fn matching<'a>(
        &'a self,
        event: HookEvent,
        subject: &'a [&'a str],
    ) -> impl Iterator<Item = &'a Hook> + 'a {
        self.hooks
            .iter()
            .filter(move |h| h.event == event && h.matches(subject))
    }

    /// The project's hooks, which need the person's approval.
    pub fn project(&self) -> impl Iterator<Item = &Hook> {
        self.hooks.iter().filter(|h| h.origin == Origin::Project)
    }

    /// A file of its folder that `hook` (a project's) runs and that changed since the person
    /// trusted the folder; None when it may run.
    pub fn changed_since_trusted(&self, hook: &Hook) -> Option<PathBuf> {
        let (root, command) = hook.trusted_as.as_ref()?;
        let standing = self.standings.iter().find(|(f, _)| f == root);
        let standing = standing
            .map(|(_, s)| s)
            .unwrap_or(&crate::config::Standing::Untrusted);
        crate::config::runs::files_run_by(command, root)
            .into_iter()
            .find(|file| !standing.allows_program(file))
    }

    /// Every hook, one line each, saying whose it is.
    pub fn listing(&self, cwd: &Path) -> Vec<String> {
        self.hooks
            .iter()
            .map(|hook| {
                let whose = match hook.origin {
                    Origin::Person => "yours",
                    Origin::Project => "the project's",
                    Origin::Plugin => "a plugin's",
                };
                format!("{}, {whose}", hook.line(cwd))
            })
            .collect()
    }

    fn add_file(&mut self, path: &Path, origin: Origin, (dialect, folder): (Dialect, &Path)) {
        let Ok(Some(value)) = crate::config::load::read_file(path, false) else {
            // A config file that does not parse is reported where the config is loaded.
            return;
        };
        let Some(hooks) = value.get("hooks").filter(|h| !h.is_null()) else {
            return;
        };
        self.add_events(hooks, path, (origin, dialect), folder);
    }

    /// The hooks of one `hooks` map (events to matcher groups) read from `path`.
    fn add_events(
        &mut self,
        hooks: &Value,
        path: &Path,
        (origin, dialect): (Origin, Dialect),
        folder: &Path,
    ) {
        // One map of event names (not the config struct) keeps the binary small; unknown
        // events are reported, not fatal.
        let parsed: Result<indexmap::IndexMap<String, Vec<HookMatcher>>, _> =
            serde_json::from_value(hooks.clone());
        let events = match parsed {
            Ok(events) => events,
            Err(e) => {
                self.problems.push(format!(
                    "hooks in {}: {e}; none of them run",
                    path.display()
                ));
                return;
            }
        };
        for (name, groups) in &events {
            let Some(event) = HookEvent::ALL.into_iter().find(|e| e.name() == name) else {
                self.problems.push(format!(
                    "hooks in {}: `{name}` is not an event Tandem has; its hooks are skipped",
                    path.display()
                ));
                continue;
            };
            for group in groups {
                self.add_group(group, event, (path, origin, dialect), folder);
            }
        }
    }

    fn add_group(
        &mut self,
        group: &HookMatcher,
        event: HookEvent,
        (path, origin, dialect): (&Path, Origin, Dialect),
        folder: &Path,
    ) {
        let matcher = match matcher::Matcher::parse(group.matcher.as_deref().unwrap_or("")) {
            Ok(matcher) => matcher,
            Err(why) => {
                self.problems.push(format!(
                    "hooks in {}: the matcher {why}; its hooks are skipped",
                    path.display()
                ));
                return;
            }
        };
        for command in &group.hooks {
            if command.kind != "command" || command.command.trim().is_empty() {
                self.problems.push(format!(
                    "hooks in {}: a `{}` hook{} is skipped: Tandem runs `command` hooks",
                    path.display(),
                    command.kind,
                    if command.command.is_empty() {
                        " without a command"
                    } else {
                        ""
                    },
                ));
                continue;
            }
            self.hooks.push(Hook {
                event,
                matcher: matcher.clone(),
                pattern: matcher.is_some().then(|| group.matcher.clone()).flatten(),
                command: command.command.clone(),
                timeout: command
                    .timeout
                    .map_or(DEFAULT_TIMEOUT, |s| Duration::from_secs(s.max(1))),
                sandboxed: command.sandbox != Some(false),
                origin,
                dialect,
                source: path.to_owned(),
                folder: folder.to_owned(),
                trusted_as: (origin == Origin::Project)
                    .then(|| (folder.to_owned(), command.command.clone())),
                env: Vec::new(),
            });
        }
    }
}

impl Hook {
    /// `Event [matcher] (file): command`.
    fn line(&self, cwd: &Path) -> String {
        let source = self.source.strip_prefix(cwd).unwrap_or(&self.source);
        format!(
            "{}{} ({}{}): {}",
            self.event.name(),
            self.pattern
                .as_ref()
                .map(|m| format!(" [{m}]"))
                .unwrap_or_default(),
            source.display(),
            if self.sandboxed { "" } else { ", unsandboxed" },
            self.command
        )
    }
}

/// The JSON every hook gets on stdin: the session, the folder, the event, and `fields`.
pub fn input(session_id: &str, cwd: &Path, event: HookEvent, fields: Value) -> Value {
    let mut input = serde_json::json!({
        "session_id": session_id,
        "cwd": cwd.display().to_string(),
        "hook_event_name": event.name(),
    });
    if let (Value::Object(input), Value::Object(fields)) = (&mut input, fields) {
        input.extend(fields);
    }
    input
}
