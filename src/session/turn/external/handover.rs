//! The conversation so far, written out for an external agent that cannot load its earlier
//! session (its process was restarted, or it is another agent): the person's words, the
//! answers and what each tool call did, newest kept when it is long, and the todo list.

use crate::message::{Message, PartBody, Role};
use crate::todo::{Todo, TodoStatus};

/// The most of the conversation handed over, in characters (the newest kept).
const MOST: usize = 60_000;

/// The conversation before the prompt being answered, and the session's todo list, as text to
/// put before it; None when there is no conversation.
pub(super) fn history(messages: &[Message], todos: &[Todo]) -> Option<String> {
    let last_prompt = messages.iter().rposition(|m| m.info.role == Role::User)?;
    let mut lines = Vec::new();
    for message in &messages[..last_prompt] {
        let who = match message.info.role {
            Role::User => "The person",
            Role::Assistant => "You",
        };
        for part in &message.parts {
            match &part.body {
                PartBody::Text {
                    text,
                    synthetic: false,
                } if !text.trim().is_empty() => {
                    lines.push(format!("{who}: {}", text.trim()));
                }
                PartBody::Tool(call) => {
                    let title = call.title.clone().unwrap_or_else(|| call.tool.clone());
                    let how = match &call.state {
                        crate::message::ToolState::Completed { .. } => "done",
                        crate::message::ToolState::Error { .. } => "failed",
                        _ => "interrupted",
                    };
                    lines.push(format!("[{} {title}: {how}]", call.tool));
                }
                _ => {}
            }
        }
    }
    if lines.is_empty() {
        return None;
    }
    let mut text = lines.join("\n");
    if text.len() > MOST {
        let mut cut = text.len() - MOST;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        text = format!("(earlier turns left out)\n{}", &text[cut..]);
    }
    Some(format!(
        "This conversation began before you could see it. What was said and done so far:\n\n\
         {text}\n\n{}The person's new message follows.\n\n",
        plan(todos)
    ))
}

/// The todo list as it stands, one line per item.
fn plan(todos: &[Todo]) -> String {
    if todos.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = todos
        .iter()
        .map(|todo| {
            let state = match todo.status {
                TodoStatus::Pending => "to do",
                TodoStatus::InProgress => "doing",
                TodoStatus::Completed => "done",
                TodoStatus::Cancelled => "dropped",
            };
            format!("- [{state}] {}", todo.content)
        })
        .collect();
    format!("The todo list so far:\n{}\n\n", lines.join("\n"))
}
