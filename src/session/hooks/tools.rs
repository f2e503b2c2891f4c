//! `PreToolUse` and `PostToolUse` for one call: what the hooks make of it before it runs
//! (blocked, allowed, asked about, its input changed) and what they add to its result.

use std::sync::Arc;

use serde_json::{Value, json};

use super::SessionHooks;
use crate::extension::hook::{Decision, Dialect, HookEvent};
use crate::session::ports::permission::{Gate, Preapproved};
use crate::tool::{PermissionRequest, Tool, ToolContext, ToolError, ToolOutput};

/// A call's names and input as the hooks see it.
pub(in crate::session) struct CallView<'a> {
    pub tool: &'a str,
    /// Claude Code's name for it (`Bash`, `mcp__server__tool`).
    pub alias: Option<String>,
    pub call_id: &'a str,
    pub input: &'a Value,
}

impl CallView<'_> {
    /// The event's fields in `dialect`; Claude's paths are absolute, as its tools' are.
    fn fields(&self, dialect: Dialect, cwd: &std::path::Path, more: Value) -> Value {
        let mut fields = match dialect {
            Dialect::Tandem => json!({"tool_name": self.tool, "tool_input": self.input}),
            Dialect::Claude => {
                let mut input = crate::extension::hook::claude_input(self.input);
                if let Some(path) = input.get("file_path").and_then(Value::as_str) {
                    input["file_path"] = cwd.join(path).display().to_string().into();
                }
                json!({
                    "tool_name": self.alias.as_deref().unwrap_or(self.tool),
                    "tool_input": input,
                })
            }
        };
        fields["tool_use_id"] = self.call_id.into();
        if let (Value::Object(fields), Value::Object(more)) = (&mut fields, more) {
            fields.extend(more);
        }
        fields
    }

    fn subjects(&self) -> Vec<&str> {
        crate::extension::hook::subjects(self.tool, self.alias.as_deref())
    }
}

/// What the `PreToolUse` hooks made of a call.
#[derive(Debug, Default)]
pub(in crate::session) struct Before {
    /// Why it must not run (an exit 2, a `deny`): the model reads it.
    pub blocked: Option<String>,
    /// `Allow` answers the rules' questions; `Ask` puts the call to the person first.
    pub decision: Option<(Decision, Option<String>)>,
    /// The input a hook rewrote it to (the rules check it again when the tool runs).
    pub input: Option<Value>,
    /// What to show with the call's result: which hook changed it.
    pub note: Option<String>,
}

impl SessionHooks {
    pub async fn before_call(&self, call: &CallView<'_>) -> Before {
        if !self.has(HookEvent::PreToolUse) {
            return Before::default();
        }
        let subjects = call.subjects();
        let verdict = self
            .fire(HookEvent::PreToolUse, &subjects, &|d| {
                call.fields(d, &self.cwd, json!({}))
            })
            .await;
        let mut before = Before {
            blocked: verdict.blocked(),
            decision: verdict.decision.clone(),
            ..Before::default()
        };
        if let Some((update, command)) = verdict.updated_input {
            let dialect = self.dialect_of(&command);
            let update = match dialect {
                Dialect::Claude => crate::extension::hook::tandem_input(&update),
                Dialect::Tandem => update,
            };
            let mut input = call.input.clone();
            if let (Value::Object(input), Value::Object(update)) = (&mut input, update) {
                input.extend(update);
            }
            if &input != call.input {
                before.note = Some(format!(
                    "The PreToolUse hook `{command}` changed this call's input to {input}."
                ));
                before.input = Some(input);
            }
        }
        before
    }

    /// The `PostToolUse` hooks' feedback on a call that ran, for the model (and shown).
    pub async fn after_call(&self, call: &CallView<'_>, output: &str) -> Option<String> {
        if !self.has(HookEvent::PostToolUse) {
            return None;
        }
        let subjects = call.subjects();
        let response = json!({"tool_response": {"output": output}});
        let verdict = self
            .fire(HookEvent::PostToolUse, &subjects, &|d| {
                call.fields(d, &self.cwd, response.clone())
            })
            .await;
        let said: Vec<String> = verdict.block.into_iter().chain(verdict.context).collect();
        (!said.is_empty())
            .then(|| format!("<hook event=\"PostToolUse\">\n{}\n</hook>", said.join("\n")))
    }

    fn dialect_of(&self, command: &str) -> Dialect {
        self.set
            .matching(HookEvent::PreToolUse, &[])
            .find(|h| h.command == command)
            .map_or(Dialect::Tandem, |h| h.dialect)
    }
}

/// What a call came to under its hooks: its result, and the input a hook gave it.
pub(in crate::session) struct Hooked {
    pub result: Result<ToolOutput, ToolError>,
    pub input: Option<Value>,
}

/// Runs `tool` on `input` under the `PreToolUse` hooks' say (blocked, allowed, asked about,
/// rewritten: a new input meets the rules again when the tool checks it), then adds the
/// `PostToolUse` hooks' feedback to its result. Says in the result which hook did what.
pub(in crate::session) async fn run_hooked(
    hooks: &SessionHooks,
    gate: &Arc<Gate>,
    tool: &Arc<dyn Tool>,
    input: Value,
    ctx: &ToolContext,
) -> Hooked {
    if !hooks.has(HookEvent::PreToolUse) && !hooks.has(HookEvent::PostToolUse) {
        return Hooked {
            result: tool.run(input, ctx).await,
            input: None,
        };
    }
    let alias = tool.claude_name();
    let before = hooks
        .before_call(&CallView {
            tool: tool.name(),
            alias: alias.clone(),
            call_id: &ctx.call_id,
            input: &input,
        })
        .await;
    if let Some(why) = before.blocked {
        return Hooked {
            result: Err(ToolError::failed(format!(
                "A PreToolUse hook blocked this call: {why}"
            ))),
            input: None,
        };
    }
    let changed = before.input.is_some();
    let input = before.input.unwrap_or(input);
    let mut ctx = ctx.clone();
    ctx.input = input.clone();
    match before.decision {
        Some((Decision::Allow, _)) => ctx.permissions = Arc::new(Preapproved(gate.clone())),
        Some((Decision::Ask, why)) => {
            if let Err(error) = ask_for_hook(tool.as_ref(), &ctx, why).await {
                return Hooked {
                    result: Err(error),
                    input: changed.then_some(input),
                };
            }
            ctx.permissions = Arc::new(Preapproved(gate.clone()));
        }
        _ => {}
    }
    let mut result = tool.run(input.clone(), &ctx).await;
    if let Ok(out) = &mut result {
        let view = CallView {
            tool: tool.name(),
            alias,
            call_id: &ctx.call_id,
            input: &input,
        };
        if let Some(feedback) = hooks.after_call(&view, &out.output).await {
            out.output = format!("{}\n\n{feedback}", out.output);
        }
        if let Some(note) = &before.note {
            out.output = format!("{note}\n\n{}", out.output);
        }
    } else if let (Err(ToolError::Failed(message)), Some(note)) = (&mut result, &before.note) {
        *message = format!("{note}\n\n{message}");
    }
    Hooked {
        result,
        input: changed.then_some(input),
    }
}

/// A hook asked for the person's word on this call: the editor's question, the hook's reason
/// beside the call's title. Their yes answers the rules' questions for this call.
async fn ask_for_hook(
    tool: &dyn Tool,
    ctx: &ToolContext,
    why: Option<String>,
) -> Result<(), ToolError> {
    let (title, locations) = tool.describe(&ctx.input, &ctx.cwd);
    let title = format!(
        "{title}\n(A hook asks about this call{})",
        why.map(|w| format!(": {w}")).unwrap_or_default()
    );
    let request = PermissionRequest {
        session_id: ctx.session_id.clone(),
        call_id: ctx.call_id.clone(),
        tool: ctx.tool.clone(),
        kind: ctx.kind,
        permission: tool.permission().to_owned(),
        title: title.clone(),
        input: ctx.input.clone(),
        locations,
        diffs: Vec::new(),
    };
    let decision = ctx.client.request_permission(request).await;
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    if decision.allows() {
        Ok(())
    } else {
        Err(ToolError::Rejected { title })
    }
}
