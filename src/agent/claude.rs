//! Agents written for Claude Code (a plugin's `agents/*.md`) as Tandem's subagents: the
//! description and prompt kept, `tools` as rules denying every other tool, `model` kept only
//! when it names a provider; `hooks`, `mcpServers` and `permissionMode` are not taken.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::config::AgentConfig;
use crate::permission::keys;

/// The tools Claude Code's names give, as Tandem's permission keys.
fn keys_of(claude: &str) -> &'static [&'static str] {
    match claude.trim() {
        "Read" | "NotebookRead" => &[keys::READ],
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => &[keys::EDIT],
        "Bash" | "BashOutput" | "KillShell" | "KillBash" => &[keys::BASH],
        "Glob" => &[keys::GLOB],
        "Grep" => &[keys::GREP],
        "LS" => &[keys::LIST],
        "LSP" => &[keys::LSP],
        "WebFetch" => &[keys::WEBFETCH],
        "WebSearch" => &[keys::WEBSEARCH],
        "Task" | "Agent" => &[keys::TASK],
        "Skill" => &[keys::SKILL],
        "AskUserQuestion" => &[keys::QUESTION],
        "TodoWrite" => &[keys::TODOWRITE, keys::TODOREAD],
        _ => &[],
    }
}

/// The permission keys of Tandem's tools that a Claude Code `tools` list can leave out.
const TOOL_KEYS: [&str; 14] = [
    keys::READ,
    keys::EDIT,
    keys::BASH,
    keys::GLOB,
    keys::GREP,
    keys::LIST,
    keys::LSP,
    keys::WEBFETCH,
    keys::WEBSEARCH,
    keys::TASK,
    keys::SKILL,
    keys::QUESTION,
    keys::TODOWRITE,
    keys::TODOREAD,
];

/// A list written as `Read, Grep` or as a YAML list.
fn names(value: &Value) -> Vec<String> {
    match value {
        Value::String(line) => line.split(',').map(|n| n.trim().to_owned()).collect(),
        Value::Array(items) => (items.iter().filter_map(Value::as_str))
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The agent in `text` (a Claude Code agent file): its name (`name`, else `stem`) and its
/// config as a subagent; an error names the field.
pub fn parse(text: &str, stem: &str) -> Result<(String, AgentConfig), (String, String)> {
    let (front, body) = crate::config::markdown::split(text)?;
    let name = front["name"].as_str().unwrap_or(stem).to_owned();
    let mut block = json!({"mode": "subagent"});
    for key in ["description", "color"] {
        if let Some(text) = front[key].as_str() {
            block[key] = text.into();
        }
    }
    // Claude Code's `sonnet` or a bare id is left to the session's model.
    if let Some(model) = front["model"].as_str().filter(|m| m.contains('/')) {
        block["model"] = model.into();
    }
    let mut denied: Vec<&str> = Vec::new();
    if !front["tools"].is_null() {
        let allowed: Vec<&str> = (names(&front["tools"]).iter())
            .flat_map(|n| keys_of(n).iter().copied())
            .collect();
        denied.extend(TOOL_KEYS.iter().filter(|k| !allowed.contains(k)));
    }
    for name in names(&front["disallowedTools"]) {
        denied.extend(keys_of(&name));
    }
    if !denied.is_empty() {
        let rules: Map<String, Value> = denied
            .into_iter()
            .map(|k| (k.into(), "deny".into()))
            .collect();
        block["permission"] = Value::Object(rules);
    }
    let mut config: AgentConfig = crate::config::markdown::typed(block)?;
    if !body.trim().is_empty() {
        config.prompt = Some(body.trim().to_owned());
    }
    Ok((name, config))
}

/// Every agent file in `dir`, named `<prefix><name>`; a bad file is a problem naming it.
pub fn dir(dir: &Path, prefix: &str, problems: &mut Vec<String>) -> Vec<(String, AgentConfig)> {
    let mut agents = Vec::new();
    for (stem, path) in crate::config::markdown::files(dir) {
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| ("(file)".to_owned(), e.to_string()))
            .and_then(|text| parse(&text, &stem));
        match parsed {
            Ok((name, config)) => agents.push((format!("{prefix}{name}"), config)),
            Err((field, message)) => problems.push(format!(
                "agent file {}: field `{field}`: {message}; the file is skipped",
                path.display()
            )),
        }
    }
    agents
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permission::{self, Action};

    #[test]
    fn tools_leave_the_rest_denied_and_what_tandem_does_not_take_is_dropped() {
        let (name, config) = parse(
            "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep, Glob\nmodel: sonnet\npermissionMode: bypassPermissions\nhooks:\n  Stop: []\nmcpServers: {}\n---\nYou review.\n",
            "file",
        )
        .unwrap();
        assert_eq!(name, "reviewer");
        assert_eq!(config.mode, Some(crate::config::AgentMode::Subagent));
        assert_eq!(config.description.as_deref(), Some("Reviews diffs"));
        assert_eq!(config.prompt.as_deref(), Some("You review."));
        assert_eq!(config.model, None);
        let rules = permission::from_config(config.permission.as_ref().unwrap());
        let action = |key: &str| permission::evaluate(key, "x", &[&rules]);
        assert_eq!(action("edit"), Action::Deny);
        assert_eq!(action("bash"), Action::Deny);
        assert!(
            rules
                .iter()
                .all(|r| r.permission != "read" && r.permission != "grep")
        );
    }

    #[test]
    fn no_tools_list_denies_nothing() {
        let (name, config) = parse("---\ndescription: d\n---\nx", "helper").unwrap();
        assert_eq!(name, "helper");
        assert!(config.permission.is_none());
    }
}
