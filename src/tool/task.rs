//! `task`: delegates a piece of work to a subagent in a child session and returns its final
//! answer with the child's id, so the caller can resume it later with `task_id`.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{SubagentCall, Tool, ToolContext, ToolError, ToolOutput, input_str, parse_input};

pub struct TaskTool;

const DESCRIPTION: &str = "Launches a subagent to carry out a complex, multi-step task on its own, \
in its own session. Use it for open-ended searches across the codebase and for independent pieces \
of work; several task calls in one message run in parallel. Do not use it to read a known file or \
find one definition (use read, glob or grep).\n\nThe subagent sees only your `prompt`: give it the \
whole task, the context it needs, whether to change code or only research, and exactly what to \
report back. Its answer comes back to you, not to the person: summarise it for them. The result \
starts with a task_id; pass it as `task_id` to continue the same subagent session later.";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    description: String,
    prompt: String,
    subagent_type: String,
    #[serde(default)]
    task_id: Option<String>,
    #[serde(default)]
    command: Option<String>,
}

impl Tool for TaskTool {
    fn name(&self) -> &'static str {
        "task"
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
        json!({
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 words) description of the task."},
                "prompt": {"type": "string", "description": "The whole task for the subagent."},
                "subagent_type": {"type": "string", "description": "Which agent runs the task."},
                "task_id": {"type": "string", "description": "Only to resume an earlier task: the task_id it returned."},
                "command": {"type": "string", "description": "The slash command that asked for this task, if any."}
            },
            "required": ["description", "prompt", "subagent_type"],
            "additionalProperties": false
        })
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
            let input: Input = parse_input(self.name(), input)?;
            let _ = &input.command;
            let call = SubagentCall {
                description: input.description.clone(),
                prompt: input.prompt,
                agent: input.subagent_type.clone(),
                task_id: input.task_id,
            };
            let outcome = ctx.subagents.run(ctx, call).await?;
            Ok(ToolOutput {
                title: input.description,
                output: format!(
                    "task_id: {} (for resuming to continue this task if needed)\n\n<task_result>\n{}\n</task_result>",
                    outcome.session_id, outcome.text
                ),
                metadata: json!({"sessionId": outcome.session_id, "agent": input.subagent_type}),
                ..Default::default()
            })
        })
    }
}
