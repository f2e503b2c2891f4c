//! Permission rules: `{permission, pattern, action}` from the defaults, the agent, the config
//! and approvals; the last matching rule wins and no match means ask. Pure evaluation only:
//! asking the person and remembering answers belong to the session layer.

pub mod approval;
pub mod keys;
pub mod protected;
pub mod shell;
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

/// How much of what a call will do its check could see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sight {
    /// Everything: the patterns say it all.
    #[default]
    Full,
    /// Some of it runs unseen (a computed command, arithmetic on a variable, a path known
    /// only at run time): only a catch-all rule can allow it.
    Partial,
    /// The parser could not make sense of it: never allowed without asking.
    Unparsed,
}

/// Orders actions by strictness: deny over ask over allow.
pub fn strictest(a: Action, b: Action) -> Action {
    let rank = |action: Action| match action {
        Action::Allow => 0,
        Action::Ask => 1,
        Action::Deny => 2,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// The action for something under `permission` that cannot be seen: the last catch-all
/// (`*`) rule decides, but an allow turns into ask when a later, narrower rule asks or
/// denies (the unseen part might be what it names).
pub fn evaluate_unseen(permission: &str, rulesets: &[&[Rule]]) -> Action {
    let mut narrower_restriction = false;
    for rule in rulesets.iter().flat_map(|rules| rules.iter()).rev() {
        if !wildcard::matches(&rule.permission, permission) {
            continue;
        }
        if rule.pattern == "*" {
            return if rule.action == Action::Allow && narrower_restriction {
                Action::Ask
            } else {
                rule.action
            };
        }
        narrower_restriction |= rule.action != Action::Allow;
    }
    Action::Ask
}

/// The action for `patterns` under `permission` as seen with `sight`: the strictest over
/// every pattern, the unseen part, and (for an unparsed line) at least ask. Returns the
/// pattern that decided a deny.
pub fn judge(
    permission: &str,
    patterns: &[String],
    sight: Sight,
    rulesets: &[&[Rule]],
) -> (Action, Option<String>) {
    let mut verdict = (Action::Allow, None);
    for pattern in patterns {
        let action = evaluate(permission, pattern, rulesets);
        if strictest(verdict.0, action) != verdict.0 {
            verdict = (action, Some(pattern.clone()));
        }
    }
    let unseen = match sight {
        Sight::Full => Action::Allow,
        Sight::Partial => evaluate_unseen(permission, rulesets),
        Sight::Unparsed => strictest(Action::Ask, evaluate_unseen(permission, rulesets)),
    };
    if strictest(verdict.0, unseen) != verdict.0 {
        verdict = (unseen, None);
    }
    verdict
}

/// A turn's own rules and the rules of every caller above it (for a subagent's turn): each
/// layer must allow, so a child is never looser than its caller. `extra` rules (the person's
/// "always" answers) apply within every layer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layers {
    pub own: Vec<Rule>,
    pub callers: Vec<Vec<Rule>>,
}

impl Layers {
    /// Rules with no caller above them.
    pub fn top(own: Vec<Rule>) -> Self {
        Self {
            own,
            callers: Vec::new(),
        }
    }

    /// The layers of a child whose own rules are `own`, called by a turn under `self`.
    pub fn child(&self, own: Vec<Rule>) -> Self {
        let mut callers = self.callers.clone();
        callers.push(self.own.clone());
        Self { own, callers }
    }

    fn each(&self) -> impl Iterator<Item = &[Rule]> {
        std::iter::once(self.own.as_slice()).chain(self.callers.iter().map(Vec::as_slice))
    }

    /// Adds `rule` at the end of every layer.
    pub fn push(&mut self, rule: Rule) {
        self.own.push(rule.clone());
        for layer in &mut self.callers {
            layer.push(rule.clone());
        }
    }

    /// Inserts `rule` after the defaults of every layer (before what the user wrote).
    pub fn insert_after_defaults(&mut self, rule: Rule) {
        let at = defaults().len();
        for layer in std::iter::once(&mut self.own).chain(self.callers.iter_mut()) {
            layer.insert(at.min(layer.len()), rule.clone());
        }
    }

    /// The strictest judgement over every layer (see [`judge`]).
    pub fn judge(
        &self,
        permission: &str,
        patterns: &[String],
        sight: Sight,
        extra: &[Rule],
    ) -> (Action, Option<String>) {
        let mut verdict = (Action::Allow, None);
        for layer in self.each() {
            let judged = judge(permission, patterns, sight, &[layer, extra]);
            if strictest(verdict.0, judged.0) != verdict.0 {
                verdict = judged;
            }
        }
        verdict
    }

    /// The strictest action for one pattern over every layer.
    pub fn evaluate(&self, permission: &str, pattern: &str, extra: &[Rule]) -> Action {
        self.each().fold(Action::Allow, |action, layer| {
            strictest(action, evaluate(permission, pattern, &[layer, extra]))
        })
    }

    /// Whether any layer denies `permission` for every input.
    pub fn is_disabled(&self, permission: &str, extra: &[Rule]) -> bool {
        self.each()
            .any(|layer| is_disabled(permission, &[layer, extra]))
    }
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
/// the project, commands run outside the sandbox, and secrets in `.env` files, which ask. The
/// person's skill folders may be read without asking (a skill's files are its to use), but a
/// change to them still asks: a skill is instructions every later session follows.
pub fn defaults() -> Vec<Rule> {
    let mut rules = vec![
        Rule::new("*", "*", Action::Allow),
        Rule::new(keys::DOOM_LOOP, "*", Action::Ask),
        Rule::new(keys::EXTERNAL_DIRECTORY, "*", Action::Ask),
        Rule::new(keys::SANDBOX_ESCAPE, "*", Action::Ask),
        // A goal sets work going that outlasts the turn: the person approves it.
        Rule::new(keys::GOAL, "*", Action::Ask),
        // What later sessions read is the person's to approve.
        Rule::new(keys::MEMORY, "*", Action::Ask),
        // Only plan mode hands a plan over (its enforced rules allow it).
        Rule::new(keys::EXIT_PLAN, "*", Action::Deny),
        Rule::new(keys::READ, "*.env", Action::Ask),
        Rule::new(keys::READ, "*.env.*", Action::Ask),
        Rule::new(keys::READ, "*.env.example", Action::Allow),
    ];
    for dir in crate::paths::person_skill_dirs() {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let pattern = format!("{}/*", dir.display());
        rules.push(Rule::new(keys::EXTERNAL_DIRECTORY, &pattern, Action::Allow));
        rules.push(Rule::new(keys::EDIT, &pattern, Action::Ask));
    }
    rules
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
    fn unseen_work_is_allowed_only_by_a_catch_all_with_nothing_narrower_after_it() {
        let unseen = |json: &str| {
            let rules = config_rules(json);
            evaluate_unseen("bash", &[&defaults(), &rules])
        };
        assert_eq!(
            unseen(r#"{"permission": {}}"#),
            Action::Allow,
            "the defaults allow everything"
        );
        assert_eq!(
            unseen(r#"{"permission": {"bash": {"*": "allow", "rm *": "deny"}}}"#),
            Action::Ask
        );
        assert_eq!(
            unseen(r#"{"permission": {"bash": {"*": "ask", "git status *": "allow"}}}"#),
            Action::Ask
        );
        assert_eq!(
            unseen(r#"{"permission": {"bash": {"*": "deny", "echo *": "allow"}}}"#),
            Action::Deny
        );
        let rules = config_rules(r#"{"permission": {"bash": {"*": "ask", "echo *": "allow"}}}"#);
        let patterns = vec!["echo hi".to_owned()];
        assert_eq!(
            judge("bash", &patterns, Sight::Full, &[&rules]).0,
            Action::Allow
        );
        assert_eq!(
            judge("bash", &patterns, Sight::Partial, &[&rules]).0,
            Action::Ask
        );
        assert_eq!(
            judge("bash", &patterns, Sight::Unparsed, &[&defaults()]).0,
            Action::Ask
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
