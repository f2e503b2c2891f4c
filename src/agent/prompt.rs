//! The system prompt: the agent's instructions and an environment block telling the model
//! where it is working, on what, and when.

use std::path::Path;

use super::AgentInfo;

const BUILD_PROMPT: &str = "You are Tandem, a coding agent working inside the person's editor. \
Help with software engineering tasks: read the code before changing it, make focused changes, \
and say briefly what you did. Use the tools you are given to look at the project instead of \
guessing. Keep answers short and concrete; use Markdown for code.";

/// The model's system messages for `agent` working in `cwd` with `model_name`.
pub fn system_prompt(agent: &AgentInfo, cwd: &Path, model_name: &str) -> Vec<String> {
    let instructions = agent
        .prompt
        .clone()
        .unwrap_or_else(|| BUILD_PROMPT.to_owned());
    let is_git = cwd.ancestors().any(|dir| dir.join(".git").exists());
    let today = crate::id::iso8601(crate::id::now_ms());
    let environment = format!(
        "You are powered by the model {model_name}.\n<env>\n  Working directory: {}\n  \
         Is directory a git repo: {}\n  Platform: {}\n  Today's date: {}\n</env>",
        cwd.display(),
        if is_git { "yes" } else { "no" },
        std::env::consts::OS,
        &today[..10],
    );
    vec![instructions, environment]
}
