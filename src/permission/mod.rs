//! Permission rules: `{permission, pattern, action}` from the defaults, the agent, the config
//! and approvals; the last matching rule wins and no match means ask. Pure evaluation only:
//! asking the person and remembering answers belong to the session layer.

pub mod bash;
pub mod wildcard;

use serde::{Deserialize, Serialize};

pub use crate::config::PermissionAction as Action;
use crate::config::{PermissionConfig, PermissionRule};

/// One rule: for `permission` (a tool's permission key, or `*`), inputs matching `pattern` get `action`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    pub permission: String,
    pub pattern: String,
    pub action: Action,
}

impl Rule {
    pub fn new(permission: &str, pattern: &str, action: Action) -> Self {
        Self {
            permission: permission.to_owned(),
            pattern: pattern.to_owned(),
            action,
        }
    }
}

/// The action for `pattern` under `permission`: the last matching rule across `rulesets`
/// (in order), or ask when none matches.
pub fn evaluate(permission: &str, pattern: &str, rulesets: &[&[Rule]]) -> Action {
    rulesets
        .iter()
        .flat_map(|rules| rules.iter())
        .rev()
        .find(|rule| {
            wildcard::matches(&rule.permission, permission)
                && wildcard::matches(&rule.pattern, pattern)
        })
        .map(|rule| rule.action)
        .unwrap_or(Action::Ask)
}

/// The last rule that could apply to `permission` at all; a tool whose last such rule is a
/// deny for every input (`*`) is never offered to the model.
pub fn is_disabled(permission: &str, rulesets: &[&[Rule]]) -> bool {
    rulesets
        .iter()
        .flat_map(|rules| rules.iter())
        .rev()
        .find(|rule| wildcard::matches(&rule.permission, permission))
        .is_some_and(|rule| rule.pattern == "*" && rule.action == Action::Deny)
}

/// Rules from the config's `permission` value, in the user's key order.
pub fn from_config(config: &PermissionConfig) -> Vec<Rule> {
    match config {
        PermissionConfig::All(action) => vec![Rule::new("*", "*", *action)],
        PermissionConfig::ByTool(by_tool) => by_tool
            .iter()
            .flat_map(|(permission, rule)| match rule {
                PermissionRule::Action(action) => vec![Rule::new(permission, "*", *action)],
                PermissionRule::ByPattern(patterns) => patterns
                    .iter()
                    .map(|(pattern, action)| Rule::new(permission, &expand_home(pattern), *action))
                    .collect(),
            })
            .collect(),
    }
}

fn expand_home(pattern: &str) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    if let Some(rest) = pattern.strip_prefix("~/") {
        format!("{home}/{rest}")
    } else if let Some(rest) = pattern.strip_prefix("$HOME") {
        format!("{home}{rest}")
    } else {
        pattern.to_owned()
    }
}

/// What every agent starts from: everything allowed, except repeating loops, paths outside
/// the project, and secrets in `.env` files, which ask.
pub fn defaults() -> Vec<Rule> {
    vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new("doom_loop", "*", Action::Ask),
        Rule::new("external_directory", "*", Action::Ask),
        Rule::new("read", "*.env", Action::Ask),
        Rule::new("read", "*.env.*", Action::Ask),
        Rule::new("read", "*.env.example", Action::Allow),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn config_rules(json: &str) -> Vec<Rule> {
        let config = Config::from_json_str(json).unwrap();
        from_config(config.permission.as_ref().unwrap())
    }

    #[test]
    fn last_match_wins_and_no_match_asks() {
        let rules = config_rules(
            r#"{"permission": {"bash": {"*": "ask", "git status *": "allow", "git status --evil": "deny"}, "edit": "deny"}}"#,
        );
        let eval = |perm: &str, pat: &str| evaluate(perm, pat, &[&rules]);
        assert_eq!(eval("bash", "ls"), Action::Ask);
        assert_eq!(eval("bash", "git status"), Action::Allow);
        assert_eq!(eval("bash", "git status -s"), Action::Allow);
        assert_eq!(eval("bash", "git status --evil"), Action::Deny);
        assert_eq!(eval("edit", "src/main.rs"), Action::Deny);
        assert_eq!(eval("webfetch", "https://x"), Action::Ask, "no rule: ask");
    }

    #[test]
    fn key_order_decides_between_overlapping_patterns() {
        let allow_last =
            config_rules(r#"{"permission": {"bash": {"rm *": "deny", "*": "allow"}}}"#);
        assert_eq!(evaluate("bash", "rm -rf /", &[&allow_last]), Action::Allow);
        let deny_last = config_rules(r#"{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}"#);
        assert_eq!(evaluate("bash", "rm -rf /", &[&deny_last]), Action::Deny);
    }

    #[test]
    fn later_rulesets_override_defaults() {
        let user = config_rules(r#"{"permission": "ask"}"#);
        assert_eq!(evaluate("edit", "a.rs", &[&defaults()]), Action::Allow);
        assert_eq!(evaluate("edit", "a.rs", &[&defaults(), &user]), Action::Ask);
        assert_eq!(evaluate("read", "app/.env", &[&defaults()]), Action::Ask);
        assert_eq!(
            evaluate("read", "app/.env.example", &[&defaults()]),
            Action::Allow
        );
    }

    #[test]
    fn fully_denied_tools_are_disabled() {
        let rules = config_rules(
            r#"{"permission": {"edit": "deny", "bash": {"*": "deny", "ls": "allow"}}}"#,
        );
        assert!(is_disabled("edit", &[&defaults(), &rules]));
        assert!(
            !is_disabled("bash", &[&defaults(), &rules]),
            "ls is still allowed"
        );
        assert!(!is_disabled("read", &[&defaults(), &rules]));
    }
}
