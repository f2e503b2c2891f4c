//! The system prompt: the agent's instructions, an environment block telling the model where
//! it is working, on what, and when, and the project's instruction files.

use std::path::{Path, PathBuf};

use super::AgentInfo;

/// Added to the person's message while the `plan` agent answers.
pub const PLAN_REMINDER: &str = "<system-reminder>\n# Plan mode\nPlan mode is active: this is a \
read-only phase. Do not edit, write or delete files, and do not run commands that change \
anything; the permission rules refuse edits anyway. Study the code, ask clarifying questions \
(with the question tool) where the request is ambiguous, and make a concrete plan: \
the files to change, the changes, and how to check them. When it is ready, call exit_plan \
with it: the person approves it (and the session switches to build mode) or says what to change.\n\
</system-reminder>";

/// Added to the person's message when the session moves from `plan` back to `build`.
pub const BUILD_SWITCH_REMINDER: &str = "<system-reminder>\nYour operational mode has changed \
from plan to build. You are no longer in read-only mode: carry out the plan, editing files and \
running commands as the permission rules allow.\n</system-reminder>";

/// Instruction files read from the project, nearest last.
const INSTRUCTION_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md"];

/// The model's system messages for `agent` working in `cwd` (with the workspace's other
/// `roots`) with `model_name`; `extra` are the config's `instructions` paths.
pub fn system_prompt(
    agent: &AgentInfo,
    (cwd, roots): (&Path, &[PathBuf]),
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
    let other_roots: String = roots
        .iter()
        .map(|r| format!("\n  Also in the workspace: {}", r.display()))
        .collect();
    let environment = format!(
        "You are powered by the model {model_name}.\n<env>\n  Working directory: {}{other_roots}\n  \
         Is directory a git repo: {}\n  Platform: {}\n  Today's date: {}\n</env>",
        cwd.display(),
        if root.is_some() { "yes" } else { "no" },
        std::env::consts::OS,
        &today[..10],
    );
    let mut system = vec![instructions, environment];
    for path in instruction_files((cwd, roots), root, extra) {
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
/// `cwd`, the configured extra files (relative to `cwd`), then each other root's own (from its
/// repository root down to it).
fn instruction_files(
    (cwd, roots): (&Path, &[PathBuf]),
    repo: Option<&Path>,
    extra: &[String],
) -> Vec<PathBuf> {
    let mut files = vec![crate::paths::config_dir().join("AGENTS.md")];
    files.extend(in_project(cwd, repo));
    files.extend(extra.iter().map(|p| crate::paths::resolve_in(cwd, p)));
    for other in roots {
        let repo = other.ancestors().find(|dir| dir.join(".git").exists());
        files.extend(in_project(other, repo));
    }
    files.retain(|f| f.is_file());
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
}

/// A project's instruction files, from its repository root (`repo`) down to `dir`.
fn in_project(dir: &Path, repo: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<&Path> = dir.ancestors().collect();
    match repo {
        Some(repo) => dirs.retain(|d| d.starts_with(repo)),
        None => dirs.truncate(1),
    }
    dirs.into_iter()
        .rev()
        .flat_map(|d| INSTRUCTION_FILES.iter().map(move |name| d.join(name)))
        .collect()
}
