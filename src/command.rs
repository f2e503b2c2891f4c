//! The slash commands a session offers: Tandem's own (`/compact`, `/undo`, `/redo`, `/jobs`, `/init`,
//! `/review`), the config's `command` blocks, and Markdown commands (`~/.config/tandem/command/`,
//! `.opencode/command/`, `.tandem/command/`; later sources override earlier ones).

use std::path::Path;

use indexmap::IndexMap;

use crate::config::{CommandConfig, Config};

/// The name of the command that compacts the session instead of prompting the model.
pub const COMPACT: &str = "compact";
/// Reverts the last turn still shown: its messages hidden, its file changes put back.
pub const UNDO: &str = "undo";
/// Brings back the turn `/undo` last hid.
pub const REDO: &str = "redo";

/// Lists the session's background jobs; `/jobs kill ID` ends one.
pub const JOBS: &str = "jobs";

/// Shows the project's language servers and formatters and their state.
pub const DIAGNOSTICS: &str = "diagnostics";

/// Sets the session's goal, or pauses, resumes or clears it.
pub const GOAL: &str = "goal";

/// Shows what the agent remembers; `/memory forget N` drops a note.
pub const MEMORY: &str = "memory";

/// Tandem's commands that act on the session itself; no config can redefine them.
const SESSION_COMMANDS: [(&str, &str); 7] = [
    (
        COMPACT,
        "Compact the session: summarise the conversation to free context",
    ),
    (
        UNDO,
        "Undo the last turn: hide it and put back the files it changed",
    ),
    (REDO, "Redo the turn /undo last undid"),
    (
        JOBS,
        "List this session's background commands; /jobs kill ID ends one",
    ),
    (
        DIAGNOSTICS,
        "Show the language servers and formatters found for this project and their state",
    ),
    (
        GOAL,
        "Keep working, turn after turn, until a condition holds (checked on evidence)",
    ),
    (
        MEMORY,
        "Show what Tandem remembers of this project and of you; /memory forget N drops a note",
    ),
];

const INIT_TEMPLATE: &str = "Create or improve the AGENTS.md file at the root of this project: \
the instructions every coding agent working here reads first.\n\nStudy the project before \
writing: its build, test, lint and run commands (including how to run a single test), its \
layout and architecture, its code style and naming conventions, and anything surprising a \
newcomer would trip over. Read the README and any existing agent or contributor instructions \
(AGENTS.md, CLAUDE.md, .cursorrules, .github/copilot-instructions.md) and keep what is still \
true.\n\nWrite about 20 to 40 lines of concrete, project-specific guidance; no generic advice. \
If AGENTS.md exists, improve it in place rather than starting over.\n\n$ARGUMENTS";

const REVIEW_TEMPLATE: &str = "Review code changes as a careful senior engineer would.\n\nWhat to \
review: $ARGUMENTS\n(If nothing is named above, review the uncommitted changes: `git diff` and \
`git diff --staged`, plus untracked files from `git status`. If a branch is named, review \
`git diff <branch>...HEAD`; if a commit, `git show <commit>`.)\n\nRead the surrounding code \
where a change depends on it. Report, most important first: bugs and behaviour changes, security \
problems, missing error handling, missing or weak tests, and clarity problems, each with the \
file and line and a concrete fix. Say plainly if the changes look good. Do not edit files.";

const MERGE_TEMPLATE: &str = "Merge the work a subagent left on a branch into the working tree. \
Tandem keeps such a branch (named `tandem/...`) when a subagent that worked in its own worktree \
changed the same lines as the work here.\n\nBranch: $ARGUMENTS\n(If no branch is named above, \
list them with `git branch --list 'tandem/*'`, show what each changes with `git diff \
HEAD...<branch> --stat`, and ask which to merge.)\n\nMerge it without committing: `git merge \
--no-commit --no-ff <branch>` (stash nothing; the person's uncommitted work stays). Resolve every \
conflicted file so that both sides' intent survives, run the project's tests if you know how, \
then delete the branch with `git branch -D <branch>`. Report what conflicted and how you \
resolved it.";

/// A command the person can invoke as `/name args`.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    /// What the arguments are, if the command takes any.
    pub hint: Option<String>,
    pub config: CommandConfig,
}

/// Every command of a project, by name, in the order the editor lists them.
#[derive(Debug, Clone, Default)]
pub struct Commands {
    commands: IndexMap<String, CommandInfo>,
    /// Files that could not be read, in words.
    pub problems: Vec<String>,
}

impl Commands {
    /// Tandem's commands, the person's, the config's, then each workspace folder's Markdown
    /// commands (`folders` lowest precedence first, the project last).
    pub fn load(config: &Config, folders: &[&Path]) -> Self {
        let mut commands = Self::default();
        commands.add_session_commands();
        for (name, description, hint, template) in [
            (
                "init",
                "Create or improve AGENTS.md, the project's instructions for agents",
                Some("what to focus on (optional)"),
                INIT_TEMPLATE,
            ),
            (
                "review",
                "Review changes: uncommitted by default, or a branch or commit",
                Some("branch or commit (default: uncommitted changes)"),
                REVIEW_TEMPLATE,
            ),
            (
                "merge",
                "Merge a subagent's kept branch (tandem/...) after a conflict, resolving it",
                Some("branch (default: list them)"),
                MERGE_TEMPLATE,
            ),
        ] {
            let config = CommandConfig {
                template: template.into(),
                description: Some(description.into()),
                input: hint.map(str::to_owned),
                ..CommandConfig::default()
            };
            commands.add(name.into(), config);
        }
        commands.add_dir(&crate::paths::config_dir().join("command"));
        // The person's Claude Code plugins: `/<plugin>:<command>`.
        for plugin in crate::config::plugins::enabled(folders) {
            for dir in plugin.command_dirs() {
                commands.add_dir_as(&dir, &format!("{}:", plugin.name));
            }
        }
        for (name, block) in &config.command {
            commands.add(name.clone(), block.clone());
        }
        for folder in folders {
            commands.add_dir(&folder.join(".opencode/command"));
            commands.add_dir(&folder.join(".tandem/command"));
        }
        commands.add_session_commands();
        commands
    }

    fn add_session_commands(&mut self) {
        for (name, description) in SESSION_COMMANDS {
            let config = CommandConfig {
                description: Some(description.into()),
                input: match name {
                    JOBS => Some("kill ID".to_owned()),
                    GOAL => Some("condition, or pause | resume | clear".to_owned()),
                    MEMORY => Some("forget N".to_owned()),
                    _ => None,
                },
                ..CommandConfig::default()
            };
            self.add(name.into(), config);
        }
    }

    pub fn get(&self, name: &str) -> Option<&CommandInfo> {
        self.commands.get(name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &CommandInfo> {
        self.commands.values()
    }

    /// Each skill (name, description) as a slash command (`/name what to do`), unless a
    /// command has its name.
    pub fn add_skills<'a>(&mut self, skills: impl IntoIterator<Item = (&'a str, &'a str)>) {
        for (name, description) in skills {
            if self.get(name).is_some() {
                continue;
            }
            let config = CommandConfig {
                template: format!(
                    "Load the skill `{name}` with the skill tool and follow it for this task: $ARGUMENTS"
                ),
                description: Some(crate::utf8::one_line(description, 200).unwrap_or_default()),
                input: Some("what to do (optional)".into()),
                ..CommandConfig::default()
            };
            self.add(name.to_owned(), config);
        }
    }

    fn add(&mut self, name: String, config: CommandConfig) {
        let takes_arguments = ["$ARGUMENTS", "$1"]
            .iter()
            .any(|p| config.template.contains(p));
        let hint = config
            .input
            .clone()
            .or_else(|| takes_arguments.then(|| "arguments".to_owned()));
        let description = config.description.clone().unwrap_or_else(|| {
            let first = config.template.lines().find(|l| !l.trim().is_empty());
            first.unwrap_or(&name).chars().take(80).collect()
        });
        let info = CommandInfo {
            name: name.clone(),
            description,
            hint,
            config,
        };
        self.commands.insert(name, info);
    }

    /// Every `*.md` command in `dir` (name = file stem): frontmatter, then the template.
    fn add_dir(&mut self, dir: &Path) {
        self.add_dir_as(dir, "");
    }

    /// The Markdown commands in `dir`, each named `prefix` and its file name.
    fn add_dir_as(&mut self, dir: &Path, prefix: &str) {
        for (name, path) in crate::config::markdown::files(dir) {
            let name = format!("{prefix}{name}");
            match std::fs::read_to_string(&path)
                .map_err(|e| ("(file)".to_owned(), e.to_string()))
                .and_then(|text| parse_markdown(&text))
            {
                Ok(mut config) => {
                    // Claude Code's commands name a model by its bare id; Tandem's are
                    // `provider/model`, so a bare id is left to the session's model.
                    if config.model.as_deref().is_some_and(|m| !m.contains('/')) {
                        config.model = None;
                    }
                    self.add(name, config)
                }
                Err((field, message)) => self.problems.push(format!(
                    "command file {}: field `{field}`: {message}; the file is skipped",
                    path.display()
                )),
            }
        }
    }
}

fn parse_markdown(text: &str) -> Result<CommandConfig, (String, String)> {
    let (mut value, body) = crate::config::markdown::split(text)?;
    value["template"] = body.trim().into();
    crate::config::markdown::typed(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_commands_override_and_describe_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let commands_dir = dir.path().join(".tandem/command");
        std::fs::create_dir_all(&commands_dir).unwrap();
        std::fs::write(
            commands_dir.join("test.md"),
            "---\ndescription: Run the tests\nagent: build\nsubtask: false\n---\nRun the tests for $1 and fix failures.\n",
        )
        .unwrap();
        std::fs::write(commands_dir.join("bad.md"), "---\nsubtask: often\n---\nx").unwrap();
        let config =
            Config::from_json_str(r#"{"command": {"plain": {"template": "Explain the code"}}}"#)
                .unwrap();
        let commands = Commands::load(&config, &[dir.path()]);
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "compact",
                "undo",
                "redo",
                "jobs",
                "diagnostics",
                "goal",
                "memory",
                "init",
                "review",
                "merge",
                "plain",
                "test"
            ]
        );
        let test = commands.get("test").unwrap();
        assert_eq!(test.description, "Run the tests");
        assert_eq!(test.hint.as_deref(), Some("arguments"));
        assert_eq!(
            test.config.template,
            "Run the tests for $1 and fix failures."
        );
        assert_eq!(test.config.agent.as_deref(), Some("build"));
        assert_eq!(commands.get("plain").unwrap().hint, None);
        assert_eq!(commands.problems.len(), 1, "{:?}", commands.problems);
    }
}
