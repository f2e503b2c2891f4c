//! The built-in agents: `build` and `plan` (primary), `general` and `explore` (subagents), and
//! the hidden `title`, `summary` and `compaction`, each with its permission rules and prompt.

use super::{AgentInfo, AgentMode};
use crate::permission::keys;
use crate::permission::{Action, Rule};

const EXPLORE_PROMPT: &str = "You are a fast file-search specialist working inside a coding \
project. Find what you are asked for with glob (file names), grep (contents) and read (known \
paths); use bash only for read-only commands. Be quick for simple lookups and thorough when asked. \
Answer with absolute file paths and the lines that matter. Never create or change files.";

const GENERAL_PROMPT: &str = "You are a general-purpose agent working on one delegated task in a \
coding project. Research the question or carry out the multi-step work you were given, using your \
tools. When done, answer with a concise report of what you found or changed: the caller sees only \
your final message.";

const HIDDEN_PROMPT: &str = "Answer with text only.";

fn agent(name: &str, mode: AgentMode, description: &str) -> AgentInfo {
    AgentInfo {
        name: name.to_owned(),
        description: Some(description.to_owned()),
        mode,
        native: true,
        ..AgentInfo::default()
    }
}

fn deny_all_but(allowed: &[&str]) -> Vec<Rule> {
    let mut rules = vec![Rule::new("*", "*", Action::Deny)];
    rules.extend(
        allowed
            .iter()
            .map(|tool| Rule::new(tool, "*", Action::Allow)),
    );
    rules
}

/// Every built-in agent, in the order modes are shown.
pub fn agents() -> Vec<AgentInfo> {
    let mut plan = agent(
        "plan",
        AgentMode::Primary,
        "Plan mode: reads and explores, asks before running commands, never edits files.",
    );
    // Plan mode never edits, whatever the global `permission` block says; only the plan
    // agent's own config can loosen that. Its asking before commands can be loosened.
    plan.enforced = vec![
        Rule::new(keys::EDIT, "*", Action::Deny),
        Rule::new(keys::SANDBOX_ESCAPE, "*", Action::Deny),
        // An MCP tool its server does not mark read-only may write: plan mode asks first.
        Rule::new(keys::MCP_SIDE_EFFECTS, "*", Action::Ask),
        Rule::new(keys::EXIT_PLAN, "*", Action::Allow),
    ];
    // What the rules cannot see (an allowed command's own writes) the sandbox holds: plan
    // mode's commands run read-only, over the config's sandbox.
    plan.sandbox = Some(crate::config::SandboxConfig {
        mode: Some(crate::config::SandboxMode::ReadOnly),
        ..Default::default()
    });
    plan.permission = vec![Rule::new(keys::BASH, "*", Action::Ask)];
    let mut general = agent(
        "general",
        AgentMode::Subagent,
        "General-purpose agent for researching complex questions and carrying out multi-step tasks; several can run in parallel.",
    );
    general.prompt = Some(GENERAL_PROMPT.to_owned());
    general.permission = vec![
        Rule::new(keys::TODOWRITE, "*", Action::Deny),
        Rule::new(keys::TODOREAD, "*", Action::Deny),
    ];
    let mut explore = agent(
        "explore",
        AgentMode::Subagent,
        "Fast agent for exploring a codebase: finds files by pattern, searches code, answers questions about it. Say how thorough to be: quick, medium or very thorough.",
    );
    explore.prompt = Some(EXPLORE_PROMPT.to_owned());
    explore.permission = deny_all_but(&[
        keys::GREP,
        keys::GLOB,
        keys::LIST,
        keys::BASH,
        keys::WEBFETCH,
        keys::READ,
        keys::LSP,
    ]);
    explore.enforced = vec![Rule::new(keys::EDIT, "*", Action::Deny)];
    let hidden = |name: &str, description: &str, prompt: &str| {
        let mut a = agent(name, AgentMode::Primary, description);
        a.hidden = true;
        a.prompt = Some(prompt.to_owned());
        a.permission = vec![Rule::new("*", "*", Action::Deny)];
        a
    };
    vec![
        agent(
            "build",
            AgentMode::Primary,
            "The default agent: reads, edits and runs commands as the permission rules allow.",
        ),
        plan,
        general,
        explore,
        hidden("title", "Writes a session's title.", super::TITLE_PROMPT),
        hidden("summary", "Summarises a session's changes.", HIDDEN_PROMPT),
        hidden(
            "compaction",
            "Condenses a long conversation.",
            super::COMPACTION_PROMPT,
        ),
    ]
}
