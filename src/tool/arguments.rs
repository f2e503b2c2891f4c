//! Arguments as models send them, repaired when that is safe: JSON with a trailing comma or
//! cut off before its closing brackets; and, against the tool's schema, the whole object sent
//! as a JSON string, `old_string` for `oldString` (any case or separator), and objects,
//! arrays, booleans and numbers sent as strings.

use serde_json::{Map, Value};

/// `input` repaired to fit `schema`, or `None` when nothing could be repaired.
pub fn repaired(schema: &Value, input: &Value) -> Option<Value> {
    let object = match input {
        Value::Object(object) => object.clone(),
        Value::String(text) => match serde_json::from_str(text) {
            Ok(Value::Object(object)) => object,
            _ => return None,
        },
        _ => return None,
    };
    let properties = schema.get("properties")?.as_object()?;
    // Keys spelled right first, so they win over another spelling of the same property.
    let (right, other): (Vec<_>, Vec<_>) = object
        .into_iter()
        .partition(|(key, _)| properties.contains_key(key));
    let mut fixed = Map::new();
    for (key, value) in right.into_iter().chain(other) {
        let name = if properties.contains_key(&key) {
            key
        } else {
            property_named(properties, &key).unwrap_or(key)
        };
        let value = match properties.get(&name) {
            Some(property) => coerced(property, value),
            None => value,
        };
        fixed.entry(name).or_insert(value);
    }
    let fixed = Value::Object(fixed);
    (&fixed != input).then_some(fixed)
}

/// The one property that `key` names once case, `_` and `-` are ignored.
fn property_named(properties: &Map<String, Value>, key: &str) -> Option<String> {
    let folded = fold(key);
    let mut matching = properties.keys().filter(|p| fold(p) == folded);
    let first = matching.next()?;
    matching.next().is_none().then(|| first.clone())
}

/// A name with case, `_`, `-` and spaces ignored: how argument and tool names are compared.
pub(super) fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-' && *c != ' ')
        .flat_map(char::to_lowercase)
        .collect()
}

/// A string holding what the property's type wants, read as that.
fn coerced(property: &Value, value: Value) -> Value {
    let (Some(kind), Value::String(text)) = (property.get("type").and_then(Value::as_str), &value)
    else {
        return value;
    };
    let parsed = match kind {
        "object" | "array" | "integer" | "number" => {
            serde_json::from_str::<Value>(text.trim()).ok()
        }
        "boolean" => match text.trim() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    let fits = |v: &Value| match kind {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        _ => v.is_boolean(),
    };
    parsed.filter(fits).unwrap_or(value)
}

/// Arguments that are not valid JSON read after a safe repair, and what was repaired: commas
/// before a closing bracket dropped, or the closing brackets a cut-off object lacks added.
/// Text cut off inside a string is never completed (its end is unknown).
pub fn repair_json(text: &str) -> Option<(Value, &'static str)> {
    let mut out = String::with_capacity(text.len() + 4);
    let (mut open, mut in_string, mut escaped, mut dropped) = (Vec::new(), false, false, false);
    for c in text.trim().chars() {
        if in_string {
            (escaped, in_string) = (!escaped && c == '\\', in_string && (escaped || c != '"'));
        } else if c == '"' {
            in_string = true;
        } else if c == '{' || c == '[' {
            open.push(if c == '{' { '}' } else { ']' });
        } else if c == '}' || c == ']' {
            open.pop();
            let kept = out.trim_end().len();
            if out[..kept].ends_with(',') {
                out.truncate(kept - 1);
                dropped = true;
            }
        }
        out.push(c);
    }
    if in_string || (open.is_empty() && !dropped) {
        return None;
    }
    let closed = !open.is_empty();
    let kept = out.trim_end().len();
    if closed && out[..kept].ends_with(',') {
        out.truncate(kept - 1);
    }
    out.extend(open.iter().rev());
    let value: Value = serde_json::from_str(&out).ok()?;
    value.is_object().then_some((
        value,
        if closed {
            "the closing brackets the JSON lacked were added"
        } else {
            "a trailing comma was dropped"
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "filePath": {"type": "string"}, "oldString": {"type": "string"},
            "replaceAll": {"type": "boolean"}, "offset": {"type": "integer"},
            "todos": {"type": "array"}
        }})
    }

    #[test]
    fn snake_case_and_other_spellings_find_their_property() {
        let input =
            json!({"file_path": "a", "OLD-STRING": "x", "replace_all": "true", "offset": "3"});
        assert_eq!(
            repaired(&schema(), &input).unwrap(),
            json!({"filePath": "a", "oldString": "x", "replaceAll": true, "offset": 3})
        );
    }

    #[test]
    fn json_sent_as_a_string_is_read() {
        let input = json!("{\"filePath\": \"a\", \"todos\": \"[{\\\"content\\\": \\\"x\\\"}]\"}");
        assert_eq!(
            repaired(&schema(), &input).unwrap(),
            json!({"filePath": "a", "todos": [{"content": "x"}]})
        );
    }

    #[test]
    fn broken_json_is_repaired_only_when_safe() {
        let (value, what) = repair_json(r#"{"a": [1, 2,], "b": "x",}"#).unwrap();
        assert_eq!(
            (value, what),
            (
                json!({"a": [1, 2], "b": "x"}),
                "a trailing comma was dropped"
            )
        );
        let (value, what) = repair_json(r#"{"a": {"b": [1, 2"#).unwrap();
        assert_eq!(value, json!({"a": {"b": [1, 2]}}));
        assert_eq!(what, "the closing brackets the JSON lacked were added");
        assert_eq!(
            repair_json(r#"{"content": "cut off her"#),
            None,
            "inside a string"
        );
        assert_eq!(
            repair_json(r#"{"a": "x,}"}"#),
            None,
            "commas in strings are text"
        );
        assert_eq!(repair_json("[1, 2,]"), None, "not an object");
        assert_eq!(repair_json("{\"a\": 1} trailing"), None);
    }

    #[test]
    fn nothing_to_repair_is_none_and_the_right_spelling_wins() {
        assert_eq!(repaired(&schema(), &json!({"filePath": "a"})), None);
        assert_eq!(repaired(&schema(), &json!({"offset": "three"})), None);
        let both = json!({"filePath": "right", "file_path": "wrong"});
        assert_eq!(
            repaired(&schema(), &both).unwrap(),
            json!({"filePath": "right"})
        );
    }
}
