//! What hooks answered, read as Claude Code reads it: exit 0 goes on (its stdout is context
//! where Claude's is), exit 2 blocks with stderr, other ends are errors shown to the person,
//! and JSON on stdout says more. Several hooks' answers make one verdict.

use serde::Deserialize;
use serde_json::Value;

use super::{Hook, HookEvent, HookRun, Ran};

/// A hook's say on a tool call's permission; the rules still bound it (a deny rule holds
/// over `Allow`, `Deny` always wins, `Ask` becomes the editor's question).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

/// One hook's answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// It blocks what the event is about; why (for the model, or the person, per event).
    pub block: Option<String>,
    pub decision: Option<(Decision, Option<String>)>,
    pub updated_input: Option<Value>,
    /// Context for the model.
    pub context: Option<String>,
    /// `"continue": false`: the agent stops; why, for the person.
    pub halt: Option<String>,
    /// For the person: a `systemMessage`, or what went wrong running the hook.
    pub notice: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Output {
    #[serde(rename = "continue")]
    go_on: Option<bool>,
    stop_reason: Option<String>,
    system_message: Option<String>,
    decision: Option<String>,
    reason: Option<String>,
    hook_specific_output: Option<Specific>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Specific {
    permission_decision: Option<String>,
    permission_decision_reason: Option<String>,
    updated_input: Option<Value>,
    additional_context: Option<String>,
}

impl Reply {
    /// Reads what `hook` did on `event`.
    pub fn read(hook: &Hook, event: HookEvent, run: &HookRun) -> Self {
        let name = &hook.command;
        let failed = |why: String| Self {
            notice: Some(format!("The {} hook `{name}` {why}", event.name())),
            ..Self::default()
        };
        match &run.ran {
            Ran::Exited(0) => {}
            Ran::Exited(2) => {
                let said = run.stderr.trim();
                return Self {
                    block: Some(if said.is_empty() {
                        format!("blocked by the hook `{name}`")
                    } else {
                        said.to_owned()
                    }),
                    ..Self::default()
                };
            }
            Ran::Exited(code) => {
                return failed(format!("failed (exit {code}): {}", run.stderr.trim()));
            }
            Ran::Signalled => return failed(format!("crashed: {}", run.stderr.trim())),
            Ran::TimedOut => {
                return failed(format!(
                    "ran over {} s and was stopped",
                    hook.timeout.as_secs()
                ));
            }
            Ran::Cancelled => return Self::default(),
            Ran::NotStarted(why) => return failed(format!("did not start: {why}")),
        }
        let text = run.stdout.trim();
        if text.starts_with('{')
            && let Ok(output) = serde_json::from_str::<Output>(text)
        {
            return Self::from_output(output, hook, event);
        }
        // Plain stdout is context where Claude Code makes it so.
        let context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
            .then(|| text.to_owned())
            .filter(|t| !t.is_empty());
        Self {
            context,
            ..Self::default()
        }
    }

    fn from_output(output: Output, hook: &Hook, event: HookEvent) -> Self {
        let specific = output.hook_specific_output.unwrap_or_default();
        let reason = output.reason.filter(|r| !r.trim().is_empty());
        let mut reply = Self {
            context: specific.additional_context.filter(|c| !c.trim().is_empty()),
            notice: output.system_message,
            updated_input: specific.updated_input.filter(Value::is_object),
            ..Self::default()
        };
        if output.go_on == Some(false) {
            reply.halt = Some(output.stop_reason.unwrap_or_else(|| {
                format!(
                    "The {} hook `{}` stopped the agent.",
                    event.name(),
                    hook.command
                )
            }));
        }
        let decision = specific
            .permission_decision
            .as_deref()
            .and_then(|d| match d {
                "allow" => Some(Decision::Allow),
                "ask" => Some(Decision::Ask),
                "deny" => Some(Decision::Deny),
                _ => None,
            })
            // The older spelling: `"decision": "approve" | "block"` on PreToolUse.
            .or(match (event, output.decision.as_deref()) {
                (HookEvent::PreToolUse, Some("approve")) => Some(Decision::Allow),
                (HookEvent::PreToolUse, Some("block")) => Some(Decision::Deny),
                _ => None,
            });
        if let Some(decision) = decision {
            let why = specific.permission_decision_reason.or(reason.clone());
            reply.decision = Some((decision, why));
        } else if output.decision.as_deref() == Some("block") {
            reply.block =
                Some(reason.unwrap_or_else(|| format!("blocked by the hook `{}`", hook.command)));
        }
        reply
    }
}

/// Every matching hook's answer to one event, taken together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    pub block: Option<String>,
    /// The strongest decision (deny over ask over allow) and the reasons given for it.
    pub decision: Option<(Decision, Option<String>)>,
    /// The last hook's new input, and that hook's command.
    pub updated_input: Option<(Value, String)>,
    pub context: Option<String>,
    pub halt: Option<String>,
    pub notices: Vec<String>,
}

impl Verdict {
    pub fn add(&mut self, hook: &Hook, reply: Reply) {
        join(&mut self.block, reply.block);
        join(&mut self.context, reply.context);
        join(&mut self.halt, reply.halt);
        self.notices.extend(reply.notice);
        if let Some((decision, why)) = reply.decision {
            match &mut self.decision {
                Some((held, reasons)) if *held == decision => join(reasons, why),
                Some((held, _)) if *held > decision => {}
                _ => self.decision = Some((decision, why)),
            }
        }
        if let Some(input) = reply.updated_input {
            self.updated_input = Some((input, hook.command.clone()));
        }
    }

    /// Why the call or prompt is blocked: an exit 2, a `block`, or a `deny`.
    pub fn blocked(&self) -> Option<String> {
        if let Some(why) = &self.block {
            return Some(why.clone());
        }
        match &self.decision {
            Some((Decision::Deny, why)) => {
                Some(why.clone().unwrap_or_else(|| "denied by a hook".into()))
            }
            _ => None,
        }
    }
}

fn join(held: &mut Option<String>, more: Option<String>) {
    match (held.as_mut(), more) {
        (Some(held), Some(more)) => {
            held.push('\n');
            held.push_str(&more);
        }
        (None, more) => *held = more,
        (Some(_), None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook() -> Hook {
        Hook {
            event: HookEvent::PreToolUse,
            matcher: None,
            pattern: None,
            command: "./h.sh".into(),
            timeout: std::time::Duration::from_secs(60),
            sandboxed: true,
            origin: crate::extension::hook::Origin::Person,
            dialect: crate::extension::hook::Dialect::Tandem,
            source: "tandem.json".into(),
            folder: "/p".into(),
            trusted_as: None,
            env: Vec::new(),
        }
    }

    fn ran(code: i32, stdout: &str, stderr: &str) -> HookRun {
        HookRun {
            ran: Ran::Exited(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn exit_codes_go_on_block_or_tell_the_person() {
        let event = HookEvent::PreToolUse;
        assert_eq!(
            Reply::read(&hook(), event, &ran(0, "ok", "")),
            Reply::default()
        );
        assert_eq!(
            Reply::read(&hook(), event, &ran(2, "", "no rm here\n")).block,
            Some("no rm here".into())
        );
        let failed = Reply::read(&hook(), event, &ran(1, "", "boom"));
        assert_eq!(failed.block, None);
        assert_eq!(
            failed.notice,
            Some("The PreToolUse hook `./h.sh` failed (exit 1): boom".into())
        );
        let prompt = Reply::read(
            &hook(),
            HookEvent::UserPromptSubmit,
            &ran(0, "today is Friday\n", ""),
        );
        assert_eq!(prompt.context, Some("today is Friday".into()));
    }

    #[test]
    fn json_answers_are_read_and_deny_wins() {
        let event = HookEvent::PreToolUse;
        let allow = Reply::read(
            &hook(),
            event,
            &ran(
                0,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}"#,
                "",
            ),
        );
        let deny = Reply::read(
            &hook(),
            event,
            &ran(
                0,
                r#"{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "not on main"}, "systemMessage": "careful"}"#,
                "",
            ),
        );
        let mut verdict = Verdict::default();
        verdict.add(&hook(), allow);
        verdict.add(&hook(), deny);
        assert_eq!(verdict.blocked(), Some("not on main".into()));
        assert_eq!(verdict.notices, ["careful"]);
        assert_eq!(
            verdict.updated_input,
            Some((serde_json::json!({"command": "ls"}), "./h.sh".into()))
        );
        let stop = Reply::read(
            &hook(),
            HookEvent::Stop,
            &ran(0, r#"{"decision": "block", "reason": "tests fail"}"#, ""),
        );
        assert_eq!(stop.block, Some("tests fail".into()));
        let halt = Reply::read(
            &hook(),
            event,
            &ran(0, r#"{"continue": false, "stopReason": "enough"}"#, ""),
        );
        assert_eq!(halt.halt, Some("enough".into()));
    }
}
