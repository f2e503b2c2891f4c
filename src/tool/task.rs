//! `task`: delegates a piece of work to a subagent in a child session and returns its final
//! answer with the child's id, so the caller can resume it later with `task_id`.

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    SubagentCall, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, input_str,
    parse_input,
};

pub struct TaskTool;

const DESCRIPTION: &str = "Launches a subagent to carry out a complex, multi-step task on its own, \
in its own session. Use it for open-ended searches across the codebase and for independent pieces \
of work; several task calls in one message run in parallel. Do not use it to read a known file or \
find one definition (use read, glob or grep).\n\nThe subagent sees only your `prompt`: give it the \
whole task, the context it needs, whether to change code or only research, and exactly what to \
report back. Its answer comes back to you, not to the person: summarise it for them. The result \
starts with a task_id; pass it as `task_id` to continue the same subagent session later.\n\n\
With `run_in_background: true` the call answers at once and you go on with other work while the \
subagent runs; you are told when it ends, with its final message. Use it for independent work you \
do not need before your next step.";

/// The `task` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskInput {
    /// A short (3-5 words) description of the task.
    pub description: String,
    /// The whole task for the subagent.
    pub prompt: String,
    /// Which agent runs the task.
    pub subagent_type: String,
    /// Only to resume an earlier task: the task_id it returned.
    #[serde(default)]
    pub task_id: Option<String>,
    /// The slash command that asked for this task, if any.
    #[serde(default)]
    pub command: Option<String>,
    /// Run it in the background: the call answers at once with its task_id and you go on;
    /// you are told when it ends, with its final message. task_output reads its progress,
    /// task_cancel stops it.
    #[serde(default)]
    pub run_in_background: bool,
    /// "worktree": the subagent works in a git worktree of its own, made from your files as
    /// they are now; its changes are merged back into yours when it ends (a conflict leaves
    /// your files alone and keeps its branch). For parallel subagents that edit.
    #[serde(default)]
    pub isolation: Option<crate::config::Isolation>,
}

impl Tool for TaskTool {
    fn name(&self) -> &'static str {
        "task"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["agent", "dispatchagent", "subagent"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Task".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    /// Subagents work independently: several task calls in one message run together.
    fn concurrent(&self) -> bool {
        true
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn description_for(&self, subagents: &[(String, String)]) -> String {
        let mut text = format!("{DESCRIPTION}\n\nAvailable agent types:");
        for (name, description) in subagents {
            text.push_str(&format!("\n- {name}: {description}"));
        }
        text
    }

    fn parameters(&self) -> Value {
        input_schema::<TaskInput>()
    }

    fn describe(
        &self,
        input: &Value,
        _cwd: &std::path::Path,
    ) -> (String, Vec<crate::message::Location>) {
        (
            input_str(input, "description").unwrap_or("task").to_owned(),
            Vec::new(),
        )
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: TaskInput = parse_input(self.name(), input)?;
            let _ = &input.command;
            let call = SubagentCall {
                description: input.description.clone(),
                prompt: input.prompt,
                agent: input.subagent_type.clone(),
                task_id: input.task_id,
                background: input.run_in_background,
                worktree: input.isolation == Some(crate::config::Isolation::Worktree),
            };
            let outcome = ctx.subagents.run(ctx, call).await?;
            let output = if outcome.background {
                format!("task_id: {}\n\n{}", outcome.session_id, outcome.text)
            } else {
                format!(
                    "task_id: {} (for resuming to continue this task if needed)\n\n<task_result>\n{}\n</task_result>",
                    outcome.session_id, outcome.text
                )
            };
            let mut metadata =
                json!({"sessionId": outcome.session_id, "agent": input.subagent_type});
            if let Some(cost) = outcome.cost {
                metadata["cost"] = json!(cost);
            }
            if outcome.background {
                metadata["background"] = json!(true);
            }
            Ok(ToolOutput {
                title: input.description,
                output,
                metadata,
                diffs: outcome.diffs,
                ..Default::default()
            })
        })
    }
}
