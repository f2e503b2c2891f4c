//! `todowrite` and `todoread`: the session's todo list, which the editor shows as its plan.
//! Writing replaces the whole list; ids stay stable across updates of the same item.

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, parse_input};
use crate::todo::{self, Todo, TodoInput};

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

/// The `todowrite` tool's arguments, for their schema: the list itself is parsed item by item
/// by `todo::from_input`, whose errors name the item at fault ("todo 2 is not valid: …").
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The whole updated todo list.
    #[allow(dead_code)]
    pub todos: Vec<TodoInput>,
}

/// The `todoread` tool's arguments: none.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoReadInput {}

/// What both tools return: the list as JSON for the model, a short summary for the person
/// (`display`), titled by how many items the plan shows.
fn listing(todos: Vec<Todo>) -> ToolOutput {
    let count = todos.len();
    ToolOutput {
        title: format!("{count} todo{}", if count == 1 { "" } else { "s" }),
        output: serde_json::to_string_pretty(&todos).unwrap_or_default(),
        metadata: json!({"todos": todos, "display": summary(&todos)}),
        ..Default::default()
    }
}

/// "2 of 4 done, 1 in progress", then one line an item with its mark.
fn summary(todos: &[Todo]) -> String {
    use crate::todo::TodoStatus::{Cancelled, Completed, InProgress, Pending};
    let count = |status| todos.iter().filter(|t| t.status == status).count();
    let mut head = format!("{} of {} done", count(Completed), todos.len());
    for (status, word) in [(InProgress, "in progress"), (Cancelled, "cancelled")] {
        if count(status) > 0 {
            head.push_str(&format!(", {} {word}", count(status)));
        }
    }
    let lines = todos.iter().map(|t| {
        let mark = match t.status {
            Completed => "[x]",
            InProgress => "[>]",
            Pending => "[ ]",
            Cancelled => "[-]",
        };
        format!("{mark} {}", t.content)
    });
    std::iter::once(head)
        .chain(lines)
        .collect::<Vec<_>>()
        .join("\n")
}

impl Tool for TodoWriteTool {
    fn name(&self) -> &'static str {
        "todowrite"
    }

    fn claude_name(&self) -> Option<String> {
        Some("TodoWrite".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        WRITE_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        input_schema::<TodoWriteInput>()
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            // The list's own messages number the item at fault ("todo 2 is not valid: …").
            let Some(items) = input.get("todos") else {
                return Err(ToolError::failed(
                    "todowrite needs `todos`: the whole list as an array of {content, status, priority}.",
                ));
            };
            ctx.started();
            let previous = ctx.todos.todos(&ctx.session_id)?;
            let todos = todo::from_input(items, &previous)
                .map_err(|e| ToolError::failed(format!("The todo list was not changed: {e}.")))?;
            ctx.todos.set_todos(&ctx.session_id, todos.clone())?;
            Ok(listing(todos))
        })
    }
}

impl Tool for TodoReadTool {
    fn name(&self) -> &'static str {
        "todoread"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        READ_DESCRIPTION
    }

    fn parameters(&self) -> Value {
        input_schema::<TodoReadInput>()
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let _: TodoReadInput = parse_input(self.name(), input)?;
            ctx.started();
            Ok(listing(ctx.todos.todos(&ctx.session_id)?))
        })
    }
}
