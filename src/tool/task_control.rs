//! `task_output` and `task_cancel`: what a subagent running in the background (`task` with
//! `run_in_background`) has done so far or how it ended, and stopping it. Both stand under
//! the `task` key: a caller that may not delegate is offered neither.

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::{Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, parse_input};
use crate::message::Location;
use crate::permission::keys;

/// The longest `task_output` waits for a child to end.
const MAX_WAIT: u64 = 600;

pub struct TaskOutputTool;
pub struct TaskCancelTool;

/// `task_output`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskOutputInput {
    /// The task_id `task` answered with.
    #[serde(alias = "task_id")]
    pub id: String,
    /// Wait up to this many seconds for it to end first (0, the default: answer at once).
    #[serde(default)]
    pub wait_seconds: u64,
}

/// `task_cancel`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskCancelInput {
    /// The task_id `task` answered with.
    #[serde(alias = "task_id")]
    pub id: String,
}

fn id_of(input: &Value) -> &str {
    input
        .get("id")
        .or_else(|| input.get("task_id"))
        .and_then(Value::as_str)
        .unwrap_or("?")
}

impl Tool for TaskOutputTool {
    fn name(&self) -> &'static str {
        "task_output"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    fn permission(&self) -> &str {
        keys::TASK
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        "Reads what a subagent started with `task` and `run_in_background` has done so far (its \
         tool calls and latest words), or its final message once it has ended. `wait_seconds` \
         waits for it to end first. You are told when it ends anyway: do not poll it in a loop."
    }

    fn parameters(&self) -> Value {
        input_schema::<TaskOutputInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        (format!("Progress of {}", id_of(input)), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: TaskOutputInput = parse_input(self.name(), input)?;
            ctx.started();
            let wait = Duration::from_secs(input.wait_seconds.min(MAX_WAIT));
            let output = ctx.subagents.progress(&input.id, wait).await?;
            Ok(ToolOutput {
                title: format!("Progress of {}", input.id),
                output,
                ..Default::default()
            })
        })
    }
}

impl Tool for TaskCancelTool {
    fn name(&self) -> &'static str {
        "task_cancel"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    fn permission(&self) -> &str {
        keys::TASK
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        "Stops a subagent started with `task` and `run_in_background`: its turn is cancelled and \
         what it changed so far stays."
    }

    fn parameters(&self) -> Value {
        input_schema::<TaskCancelInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        (format!("Stop {}", id_of(input)), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: TaskCancelInput = parse_input(self.name(), input)?;
            ctx.started();
            let output = ctx.subagents.stop(&input.id)?;
            Ok(ToolOutput {
                title: format!("Stop {}", input.id),
                output,
                ..Default::default()
            })
        })
    }
}
