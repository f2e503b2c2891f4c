//! A skill's `allowed-tools` while the agent follows it: from the moment the skill is loaded
//! until the turn ends, only the tools it lists may be used (bash only for the commands it
//! names). A narrowing only: what it lists still meets the rules, and it never allows more.

use crate::permission::keys;
use crate::permission::wildcard;

/// Permissions a skill's list does not govern: where a file lies, loops, the plan pane,
/// questions to the person, and loading skills.
const UNGOVERNED: [&str; 6] = [
    keys::EXTERNAL_DIRECTORY,
    keys::DOOM_LOOP,
    keys::SKILL,
    keys::TODOWRITE,
    keys::TODOREAD,
    keys::QUESTION,
];

/// The tools one loaded skill allows.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) struct Narrowing {
    pub skill: String,
    /// Permission keys, with the command patterns bash is limited to (none: any).
    allowed: Vec<(String, Option<String>)>,
}

impl Narrowing {
    /// Reads `allowed-tools` entries in Claude Code's spelling (`Read`, `Bash(git status:*)`,
    /// `mcp__server__tool`) or Tandem's (`read`, `bash`).
    pub fn new(skill: &str, entries: &[String]) -> Self {
        let tools = crate::tool::Registry::builtin();
        let allowed = entries
            .iter()
            .flat_map(|entry| {
                let entry = entry.trim();
                let (name, pattern) = match entry.split_once('(') {
                    Some((name, rest)) => (name.trim(), Some(rest.trim_end_matches(')').trim())),
                    None => (entry, None),
                };
                // `git status:*` is Claude's prefix form: `git status*`.
                let pattern = pattern
                    .filter(|p| !p.is_empty())
                    .map(|p| p.replace(":*", "*"));
                permissions_of(name, &tools)
                    .into_iter()
                    .map(move |permission| (permission, pattern.clone()))
            })
            .collect();
        Self {
            skill: skill.to_owned(),
            allowed,
        }
    }

    /// Whether the skill keeps a need under `permission` for `pattern` out.
    pub fn refuses(&self, permission: &str, pattern: &str) -> bool {
        if UNGOVERNED.contains(&permission) {
            return false;
        }
        !self.allowed.iter().any(|(allowed, limit)| {
            allowed == permission
                && match limit {
                    Some(limit) if permission == keys::BASH => wildcard::matches(limit, pattern),
                    _ => true,
                }
        })
    }
}

/// The loaded skills' lists as one layer of rules, for the subagents started while they are
/// followed: everything denied but what some skill lists (and what no list governs).
pub(in crate::session) fn as_layer(narrowed: &[Narrowing]) -> Vec<crate::permission::Rule> {
    use crate::permission::{Action, Rule};
    let mut layer = vec![Rule::new("*", "*", Action::Deny)];
    layer.extend(
        UNGOVERNED
            .iter()
            .map(|permission| Rule::new(permission, "*", Action::Allow)),
    );
    for narrowing in narrowed {
        for (permission, limit) in &narrowing.allowed {
            let pattern = match limit {
                Some(limit) if permission == keys::BASH => limit.as_str(),
                _ => "*",
            };
            layer.push(Rule::new(permission, pattern, Action::Allow));
        }
    }
    layer
}

/// The permission keys a tool name stands for.
fn permissions_of(name: &str, tools: &crate::tool::Registry) -> Vec<String> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        // An MCP tool's key is `<server>_<tool>`.
        return vec![rest.replacen("__", "_", 1)];
    }
    // Claude's other names for a file edit.
    let claude = match name {
        "MultiEdit" | "NotebookEdit" => "Edit",
        other => other,
    };
    // The tool by its Claude name (`Bash`) or its own (`write`), read from the tools
    // themselves; its key (`edit` for every tool that changes files).
    match tools.by_claude_name(claude).or_else(|| tools.get(name)) {
        Some(tool) => vec![tool.permission().to_owned()],
        None => vec![name.to_owned()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_in_either_spelling_narrow_and_bash_to_its_commands() {
        let narrowing = Narrowing::new(
            "release",
            &["Read".into(), "Bash(git status:*)".into(), "grep".into()],
        );
        assert!(!narrowing.refuses("read", "src/a.rs"));
        assert!(!narrowing.refuses("grep", "x"));
        assert!(!narrowing.refuses("bash", "git status --short"));
        assert!(narrowing.refuses("bash", "rm -rf src"));
        assert!(narrowing.refuses("edit", "src/a.rs"));
        assert!(!narrowing.refuses("external_directory", "/tmp/*"));
        let edits = Narrowing::new("fix", &["Edit".into(), "mcp__github__create_issue".into()]);
        assert!(!edits.refuses("edit", "a.rs"));
        assert!(!edits.refuses("github_create_issue", "{}"));
        assert!(edits.refuses("bash", "ls"));
    }
}
