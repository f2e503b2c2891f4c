//! Works around the schema crate's `Diff`, which drops a missing `oldText`: some
//! clients (Toad) then draw no diff at all; `"oldText": null` says "new file" explicitly. Only
//! messages that carry such a diff pay for the rewrite.

use agent_client_protocol::v1::schema::{SessionUpdate, ToolCallContent};
use serde_json::Value;

/// Whether `content` holds the diff of a file that did not exist.
pub fn any(content: &[ToolCallContent]) -> bool {
    content
        .iter()
        .any(|c| matches!(c, ToolCallContent::Diff(diff) if diff.old_text.is_none()))
}

/// Whether `update` carries the diff of a new file.
pub fn in_update(update: &SessionUpdate) -> bool {
    match update {
        SessionUpdate::ToolCall(call) => any(&call.content),
        SessionUpdate::ToolCallUpdate(call) => call.fields.content.as_deref().is_some_and(any),
        _ => false,
    }
}

/// Puts `"oldText": null` into every diff in the `content` array at `value` that lacks one.
pub fn mark(content: Option<&mut Value>) {
    let Some(Value::Array(items)) = content else {
        return;
    };
    for item in items {
        if let Value::Object(object) = item
            && object.get("type").and_then(Value::as_str) == Some("diff")
        {
            object.entry("oldText").or_insert(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_diffs_without_old_text_are_marked() {
        let mut content = json!([
            {"type": "diff", "path": "/a", "newText": "x"},
            {"type": "diff", "path": "/b", "oldText": "o", "newText": "x"},
            {"type": "content", "content": {"type": "text", "text": "t"}}
        ]);
        mark(Some(&mut content));
        assert_eq!(
            content,
            json!([
                {"type": "diff", "path": "/a", "newText": "x", "oldText": null},
                {"type": "diff", "path": "/b", "oldText": "o", "newText": "x"},
                {"type": "content", "content": {"type": "text", "text": "t"}}
            ])
        );
    }
}
