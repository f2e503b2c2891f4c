//! `exit_plan`: plan mode's last step. The model hands over its plan; Tandem keeps it as a
//! Markdown file in the session's data (never the project) and asks the person to approve it
//! (as a form where the editor has them, else a permission prompt). Approved, the plan's steps
//! go to the plan pane and the session switches to build mode for the rest of the turn (the
//! session layer does that on seeing `approved` in the call's metadata); otherwise the
//! person's words go back to the model.

use std::path::PathBuf;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::question::{Answer, Choice, Question, QuestionReply, QuestionRequest};
use super::{Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, parse_input};
use crate::todo::{Todo, TodoPriority, TodoStatus};

/// The option that approves the plan.
pub const IMPLEMENT: &str = "Implement the plan";
/// The option that keeps the session planning.
pub const KEEP_PLANNING: &str = "Keep planning";

const DESCRIPTION: &str = "Shows your finished plan to the person for approval and, when they \
approve it, switches the session to build mode so you carry it out. Call it once the plan is \
complete: the files to change, the changes, and how to check them, as Markdown with one list \
item per step. If the person wants changes, you get their words back: revise the plan and call \
exit_plan again.";

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExitPlanInput {
    /// The whole plan, as Markdown (one list item per step).
    plan: String,
}

pub struct ExitPlanTool;

/// Where a session's plan is kept (under the data dir, readable by later turns and subagents).
pub fn plan_file(session: &str) -> PathBuf {
    plans_dir().join(format!("{session}.md"))
}

/// Every session's plans.
pub fn plans_dir() -> PathBuf {
    crate::paths::data_dir().join("plans")
}

impl Tool for ExitPlanTool {
    fn name(&self) -> &'static str {
        "exit_plan"
    }

    fn claude_name(&self) -> Option<String> {
        Some("ExitPlanMode".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::SwitchMode
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn parameters(&self) -> Value {
        input_schema::<ExitPlanInput>()
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: ExitPlanInput = parse_input(self.name(), input)?;
            let plan = input.plan.trim().to_owned();
            if plan.is_empty() {
                return Err(ToolError::failed("The plan is empty: write it out first."));
            }
            ctx.started();
            let file = plan_file(ctx.session_id.as_str());
            let kept = keep(&file, &plan);
            let question = Question {
                question: format!("{plan}\n\nImplement this plan?"),
                header: "Plan".into(),
                options: vec![
                    Choice {
                        label: IMPLEMENT.into(),
                        description: "Switch to build mode and carry it out".into(),
                    },
                    Choice {
                        label: KEEP_PLANNING.into(),
                        description: "Stay in plan mode; say what to change".into(),
                    },
                ],
                multiple: false,
                custom: true,
            };
            let request = QuestionRequest {
                session_id: ctx.session_id.clone(),
                call_id: ctx.call_id.clone(),
                questions: vec![question.clone()],
            };
            let reply = ctx
                .client
                .ask_questions(request)
                .await
                .offered(std::slice::from_ref(&question));
            let saved = kept.then(|| file.display().to_string());
            decide(ctx, reply, &plan, saved)
        })
    }
}

/// Writes the plan to `file` (its folder made first); whether it could be.
fn keep(file: &std::path::Path, plan: &str) -> bool {
    let written = file
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(file, format!("{plan}\n")));
    if let Err(error) = &written {
        tracing::warn!(%error, "the plan could not be kept as a file");
    }
    written.is_ok()
}

/// The person's answer, as the model reads it; approval puts the steps in the plan pane.
fn decide(
    ctx: &ToolContext,
    reply: QuestionReply,
    plan: &str,
    saved: Option<String>,
) -> Result<ToolOutput, ToolError> {
    let where_kept = saved
        .as_deref()
        .map(|path| format!(" The plan is kept at {path}."))
        .unwrap_or_default();
    let out = |text: String, metadata: Value| ToolOutput {
        title: "Plan".into(),
        output: text,
        metadata,
        ..Default::default()
    };
    let answer = match reply {
        QuestionReply::Answered(mut answers) => answers.pop().unwrap_or_default(),
        QuestionReply::Declined => Answer::default(),
        QuestionReply::Cancelled => return Err(ToolError::Cancelled),
        QuestionReply::InChat => {
            let mut output = out(
                "The person will answer about the plan in their next message; the turn ends here."
                    .into(),
                json!({"approved": false, "inChat": true, "planFile": saved}),
            );
            output.ends_turn = Some("Implement this plan?".into());
            return Ok(output);
        }
        QuestionReply::Unavailable(why) => {
            return Err(ToolError::failed(format!(
                "No one could approve the plan: {why}.{where_kept}"
            )));
        }
    };
    if answer.chosen.iter().any(|c| c == IMPLEMENT) && answer.typed.is_none() {
        let steps = steps_of(plan);
        if !steps.is_empty() {
            ctx.todos.set_todos(&ctx.session_id, steps)?;
        }
        return Ok(out(
            format!(
                "The person approved the plan, and the session is in build mode now: carry \
                 the plan out step by step, keeping the todo list current.{where_kept}"
            ),
            json!({"approved": true, "planFile": saved}),
        ));
    }
    let words = answer
        .typed
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "(no words; they want the plan reconsidered)".into());
    Ok(out(
        format!(
            "The person wants to keep planning. Their words: {words}\nRevise the plan with \
             them, then call exit_plan again.{where_kept}"
        ),
        json!({"approved": false, "planFile": saved}),
    ))
}

/// The plan's steps: its list items (bulleted or numbered, any depth), in order.
fn steps_of(plan: &str) -> Vec<Todo> {
    plan.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let item = line
                .strip_prefix("- ")
                .or_else(|| line.strip_prefix("* "))
                .or_else(|| {
                    let digits = line.find(|c: char| !c.is_ascii_digit())?;
                    (digits > 0).then(|| line[digits..].strip_prefix(". "))?
                })?;
            let item = item
                .trim_start_matches("[ ] ")
                .trim_start_matches("[x] ")
                .trim();
            (!item.is_empty()).then(|| item.to_owned())
        })
        .enumerate()
        .map(|(n, content)| Todo {
            id: format!("{}", n + 1),
            content,
            status: TodoStatus::Pending,
            priority: TodoPriority::Medium,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plans_list_items_are_its_steps() {
        let plan = "# Plan\nSome words.\n\n1. Add the parser\n2. Wire it in\n   - test the edge\n* Update docs\n- [ ] Release";
        let steps: Vec<String> = steps_of(plan).into_iter().map(|t| t.content).collect();
        assert_eq!(
            steps,
            [
                "Add the parser",
                "Wire it in",
                "test the edge",
                "Update docs",
                "Release"
            ]
        );
    }
}
