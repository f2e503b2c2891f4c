//! `goal`: the model proposes a goal the session keeps working toward after this turn, turn
//! after turn, until a check of the evidence finds it holds. The person approves the call (the
//! `goal` key asks by default); the session takes the goal up when the turn ends.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, parse_input,
};
use crate::message::Location;
use crate::permission::keys;

pub struct GoalTool;

/// `goal`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalInput {
    /// The condition, checkable from commands and tests (e.g. "cargo test passes").
    pub objective: String,
}

impl Tool for GoalTool {
    fn name(&self) -> &'static str {
        "goal"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        "Proposes a goal for the session: once the person approves, Tandem keeps working on it \
         after this turn, turn after turn, until a check of the evidence (commands run, their \
         exit codes, test output, diagnostics) finds the condition holds, or its budget runs \
         out. Use it for work that takes many turns and has a condition commands can show, \
         such as \"the test suite passes\"."
    }

    fn parameters(&self) -> Value {
        input_schema::<GoalInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let objective = input["objective"].as_str().unwrap_or("?");
        (format!("Goal: {objective}"), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: GoalInput = parse_input(self.name(), input)?;
            let objective = input.objective.trim().to_owned();
            if objective.is_empty() {
                return Err(ToolError::failed("The goal's objective is empty."));
            }
            ctx.ask(PermissionCheck::new(
                keys::GOAL,
                vec![objective.clone()],
                format!("Keep working until: {objective}"),
            ))
            .await?;
            ctx.started();
            Ok(ToolOutput {
                title: format!("Goal: {objective}"),
                output: format!(
                    "The person approved the goal: {objective}. When this turn ends, a check of \
                     its evidence decides whether you go on working toward it."
                ),
                metadata: json!({"objective": objective}),
                ..Default::default()
            })
        })
    }
}
