//! The system prompt: the agent's instructions, an environment block telling the model where
//! it is working, on what, and when, and the project's instruction files.

use std::path::{Path, PathBuf};

use super::AgentInfo;

/// Added to the person's message while the `plan` agent answers.
pub const PLAN_REMINDER: &str = "<system-reminder>\n# Plan mode\nPlan mode is active: this is a \
read-only phase. Do not edit, write or delete files, and do not run commands that change \
anything; the permission rules refuse edits anyway. Study the code, ask clarifying questions \
(with the question tool) where the request is ambiguous, and answer with a concrete plan: \
the files to change, the changes, and how to check them. The person will switch to build mode to carry it out.\n\
</system-reminder>";

/// Added to the person's message when the session moves from `plan` back to `build`.
pub const BUILD_SWITCH_REMINDER: &str = "<system-reminder>\nYour operational mode has changed \
from plan to build. You are no longer in read-only mode: carry out the plan, editing files and \
running commands as the permission rules allow.\n</system-reminder>";

/// Instruction files read from the project, nearest last.
const INSTRUCTION_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md"];

/// The model's system messages for `agent` working in `cwd` with `model_name`; `extra` are the
/// config's `instructions` paths.
pub fn system_prompt(
    agent: &AgentInfo,
    cwd: &Path,
    model_name: &str,
    extra: &[String],
) -> Vec<String> {
    let instructions = agent.prompt.clone().unwrap_or_else(|| {
        super::family::Family::of(model_name)
            .instructions()
            .to_owned()
    });
    let root = cwd.ancestors().find(|dir| dir.join(".git").exists());
    let today = crate::id::iso8601(crate::id::now_ms());
    let environment = format!(
        "You are powered by the model {model_name}.\n<env>\n  Working directory: {}\n  \
         Is directory a git repo: {}\n  Platform: {}\n  Today's date: {}\n</env>",
        cwd.display(),
        if root.is_some() { "yes" } else { "no" },
        std::env::consts::OS,
        &today[..10],
    );
    let mut system = vec![instructions, environment];
    for path in instruction_files(cwd, root, extra) {
        if let Ok(text) = std::fs::read_to_string(&path)
            && !text.trim().is_empty()
        {
            system.push(format!(
                "Instructions from: {}\n{}",
                path.display(),
                text.trim()
            ));
        }
    }
    system
}

/// The global AGENTS.md, the project's AGENTS.md/CLAUDE.md from the repository root down to
/// `cwd`, then the configured extra files (relative to `cwd`).
fn instruction_files(cwd: &Path, root: Option<&Path>, extra: &[String]) -> Vec<PathBuf> {
    let mut files = vec![crate::paths::config_dir().join("AGENTS.md")];
    let mut dirs: Vec<&Path> = cwd.ancestors().collect();
    if let Some(root) = root {
        dirs.retain(|d| d.starts_with(root));
    } else {
        dirs.truncate(1);
    }
    for dir in dirs.into_iter().rev() {
        files.extend(INSTRUCTION_FILES.iter().map(|name| dir.join(name)));
    }
    files.extend(extra.iter().map(|p| crate::paths::resolve_in(cwd, p)));
    files.retain(|f| f.is_file());
    files.dedup();
    files
}
