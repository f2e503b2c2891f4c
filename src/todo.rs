//! The todo list model: items with a status and a priority, validated from a tool's raw
//! input, with ids kept stable across updates. Bottom layer: imports only `id`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
    Cancelled,
}

impl TodoStatus {
    /// Whether the item still needs doing.
    pub fn is_open(self) -> bool {
        matches!(self, Self::Pending | Self::InProgress)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TodoPriority {
    High,
    Medium,
    Low,
}

/// One item of a session's todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Todo {
    pub id: String,
    pub content: String,
    pub status: TodoStatus,
    pub priority: TodoPriority,
}

/// An item as the model writes it: the id may be missing.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoInput {
    /// The item's id (keep it when updating an item).
    #[serde(default)]
    pub id: Option<String>,
    /// What to do, briefly.
    pub content: String,
    pub status: TodoStatus,
    #[serde(default = "medium")]
    pub priority: TodoPriority,
}

fn medium() -> TodoPriority {
    TodoPriority::Medium
}

/// The new list from `todos` (the tool's `todos` argument), keeping the ids of `previous`
/// items it updates: matched by id, else by content; new items get fresh ULIDs.
pub fn from_input(todos: &Value, previous: &[Todo]) -> Result<Vec<Todo>, String> {
    let Some(items) = todos.as_array() else {
        return Err(format!(
            "`todos` must be an array of items, not {}",
            kind(todos)
        ));
    };
    let mut taken = vec![false; previous.len()];
    let mut list = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let input: TodoInput = serde_json::from_value(item.clone())
            .map_err(|e| format!("todo {} is not valid: {e}", index + 1))?;
        if input.content.trim().is_empty() {
            return Err(format!("todo {} has empty content", index + 1));
        }
        let matched = input
            .id
            .as_ref()
            .and_then(|id| previous.iter().position(|t| &t.id == id))
            .or_else(|| {
                previous
                    .iter()
                    .enumerate()
                    .position(|(i, t)| !taken[i] && t.content == input.content)
            });
        let id = match (matched, input.id) {
            (Some(i), _) => {
                taken[i] = true;
                previous[i].id.clone()
            }
            (None, Some(id)) if !id.is_empty() => id,
            (None, _) => crate::id::ulid(),
        };
        list.push(Todo {
            id,
            content: input.content,
            status: input.status,
            priority: input.priority,
        });
    }
    Ok(list)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_assigned_then_kept_by_id_or_content() {
        let first = from_input(
            &json!([
                {"content": "a", "status": "pending", "priority": "high"},
                {"content": "b", "status": "pending", "priority": "low"}
            ]),
            &[],
        )
        .unwrap();
        assert_eq!(first[0].id.len(), 26);
        assert_ne!(first[0].id, first[1].id);
        let second = from_input(&json!([
            {"content": "b", "status": "in_progress", "priority": "low"},
            {"id": first[0].id, "content": "a, reworded", "status": "completed", "priority": "high"},
            {"content": "c", "status": "cancelled"}
        ]), &first)
        .unwrap();
        assert_eq!(second[0].id, first[1].id, "matched by content");
        assert_eq!(second[1].id, first[0].id, "matched by id");
        assert_eq!(second[2].priority, TodoPriority::Medium);
        assert!(
            !second
                .iter()
                .skip(2)
                .any(|t| t.id == first[0].id || t.id == first[1].id)
        );
    }

    #[test]
    fn invalid_input_says_what_is_wrong() {
        assert_eq!(
            from_input(&json!({"a": 1}), &[]).unwrap_err(),
            "`todos` must be an array of items, not an object"
        );
        let err = from_input(&json!([{"content": "x", "status": "done"}]), &[]).unwrap_err();
        assert!(
            err.starts_with("todo 1 is not valid: unknown variant `done`"),
            "{err}"
        );
        let err = from_input(&json!([{"status": "pending"}]), &[]).unwrap_err();
        assert!(err.contains("missing field `content`"), "{err}");
        assert_eq!(
            from_input(&json!([{"content": " ", "status": "pending"}]), &[]).unwrap_err(),
            "todo 1 has empty content"
        );
    }
}
