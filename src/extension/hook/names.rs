//! What a hook written for Claude Code matches and reads: the names a matcher is tried
//! against (each tool carries its own Claude name) and Claude's spelling of tool inputs, so
//! `"matcher": "Bash|Edit"` and `.tool_input.file_path` work unchanged.

use serde_json::{Map, Value};

/// The names a matcher is tried against: Tandem's, Claude's, and `MultiEdit` for edits.
pub fn subjects<'a>(tool: &'a str, alias: Option<&'a str>) -> Vec<&'a str> {
    let mut names = vec![tool];
    names.extend(alias);
    if alias == Some("Edit") {
        names.push("MultiEdit");
    }
    names
}

/// A tool's input as Claude spells it: `filePath` → `file_path`, at the top level.
pub fn claude_input(input: &Value) -> Value {
    rename_keys(input, camel_to_snake)
}

/// A hook's `updatedInput` in Claude's spelling, back in Tandem's (`file_path` → `filePath`).
pub fn tandem_input(input: &Value) -> Value {
    rename_keys(input, snake_to_camel)
}

fn rename_keys(input: &Value, rename: fn(&str) -> String) -> Value {
    match input {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (rename(k), v.clone()))
                .collect::<Map<_, _>>(),
        ),
        other => other.clone(),
    }
}

fn camel_to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn snake_to_camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inputs_round_trip_between_the_spellings() {
        let tandem =
            json!({"filePath": "a.rs", "oldString": "x", "newString": "y", "replaceAll": true});
        let claude = claude_input(&tandem);
        assert_eq!(
            claude,
            json!({"file_path": "a.rs", "old_string": "x", "new_string": "y", "replace_all": true})
        );
        assert_eq!(tandem_input(&claude), tandem);
        assert_eq!(
            claude_input(&json!({"command": "ls"})),
            json!({"command": "ls"})
        );
    }

    #[test]
    fn edits_match_claudes_edit_and_multiedit() {
        assert_eq!(
            subjects("apply_patch", Some("Edit")),
            ["apply_patch", "Edit", "MultiEdit"]
        );
        assert_eq!(subjects("lsp", None), ["lsp"]);
    }
}
