//! `todowrite` and `todoread`: the session's todo list, which the editor shows as its plan.
//! Writing replaces the whole list; ids stay stable across updates of the same item.

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, ToolOutput};
use crate::todo::{self, Todo};

pub struct TodoWriteTool;
pub struct TodoReadTool;

const WRITE_DESCRIPTION: &str = "Creates and updates the todo list for this session; the person \
sees it as your plan. Send the whole list every time (it replaces the old one).\n\n\
When to use it: for work of three or more distinct steps, when the person gives several tasks, \
or asks for a todo list. Skip it for a single simple request or a quick question.\n\n\
How: write the items as soon as you understand the task. Keep exactly one item `in_progress` \
while you work, mark each `completed` as soon as it is done (not in batches), and mark items \
you drop `cancelled`. Add items you discover along the way. Statuses: pending, in_progress, \
completed, cancelled; priorities: high, medium, low. Keep each item short and concrete.";

const READ_DESCRIPTION: &str = "Reads this session's todo list (what `todowrite` last wrote). Use \
it to check what is left before starting the next step or when you are unsure of the plan.";

/// What both tools return: the list as JSON, counted by what is still open.
fn listing(todos: Vec<Todo>) -> ToolOutput {
    let open = todos.iter().filter(|t| t.status.is_open()).count();
    ToolOutput {
        title: format!("{open} todo{}", if open == 1 { "" } else { "s" }),
        output: serde_json::to_string_pretty(&todos).unwrap_or_default(),
        metadata: json!({"todos": todos}),
        ..Default::default()
    }
}

impl Tool for TodoWriteTool {
    fn name(&self) -> &'static str {
        "todowrite"
    }

    fn description(&self) -> &'static str {
        WRITE_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The whole updated todo list.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string", "description": "The item's id (keep it when updating an item)."},
                            "content": {"type": "string", "description": "What to do, briefly."},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "cancelled"]},
                            "priority": {"type": "string", "enum": ["high", "medium", "low"]}
                        },
                        "required": ["content", "status", "priority"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        })
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Some(items) = input.get("todos") else {
                return Err(ToolError("todowrite needs `todos`: the whole list as an array of {content, status, priority}.".into()));
            };
            let previous = ctx.todos.todos(&ctx.session_id)?;
            let todos = todo::from_input(items, &previous)
                .map_err(|e| ToolError(format!("The todo list was not changed: {e}.")))?;
            ctx.todos.set_todos(&ctx.session_id, todos.clone())?;
            Ok(listing(todos))
        })
    }
}

impl Tool for TodoReadTool {
    fn name(&self) -> &'static str {
        "todoread"
    }

    fn description(&self) -> &'static str {
        READ_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }

    fn run<'a>(
        &'a self,
        _input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(listing(ctx.todos.todos(&ctx.session_id)?)) })
    }
}
