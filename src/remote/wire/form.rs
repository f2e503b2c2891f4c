//! An agent's `elicitation/create` form, read field by field: each property of its requested
//! schema becomes a field Tandem can put to the person as a question, and the person's answers
//! are written back as the content the agent asked for.

use serde_json::{Map, Value, json};

use super::text;

/// What kind of answer a field takes.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// One of (or, `multiple`, several of) these values, each with its title.
    Choice {
        values: Vec<(String, String)>,
        multiple: bool,
    },
    Flag,
    Number {
        integer: bool,
    },
    Text,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub title: String,
    pub description: Option<String>,
    pub kind: FieldKind,
}

/// A form the agent asks the person to fill in.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub message: String,
    pub fields: Vec<Field>,
}

/// The form of an `elicitation/create` request (`None` for a URL request or a malformed one).
pub fn read(params: &Value) -> Option<Form> {
    if params["mode"].as_str().is_some_and(|m| m != "form") {
        return None;
    }
    let properties = params["requestedSchema"]["properties"].as_object()?;
    let fields = properties
        .iter()
        .map(|(name, property)| Field {
            name: name.clone(),
            title: text(property, "title").unwrap_or_else(|| name.clone()),
            description: text(property, "description"),
            kind: kind(property),
        })
        .collect();
    Some(Form {
        message: text(params, "message").unwrap_or_default(),
        fields,
    })
}

fn kind(property: &Value) -> FieldKind {
    let choices = |of: &Value| -> Option<Vec<(String, String)>> {
        if let Some(values) = of["enum"].as_array() {
            let values: Vec<String> = values
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            return Some(values.into_iter().map(|v| (v.clone(), v)).collect());
        }
        let titled = of["oneOf"].as_array().or_else(|| of["anyOf"].as_array())?;
        Some(
            titled
                .iter()
                .filter_map(|o| {
                    let value = text(o, "const")?;
                    Some((value.clone(), text(o, "title").unwrap_or(value)))
                })
                .collect(),
        )
    };
    match property["type"].as_str().unwrap_or_default() {
        "boolean" => FieldKind::Flag,
        "number" => FieldKind::Number { integer: false },
        "integer" => FieldKind::Number { integer: true },
        "array" => match choices(&property["items"]) {
            Some(values) => FieldKind::Choice {
                values,
                multiple: true,
            },
            None => FieldKind::Text,
        },
        _ => match choices(property) {
            Some(values) => FieldKind::Choice {
                values,
                multiple: false,
            },
            None => FieldKind::Text,
        },
    }
}

/// The value of `field` from the person's answer: the chosen titles (`chosen`) or their own
/// words (`typed`); `None` when they gave none that fits.
pub fn value(field: &Field, chosen: &[String], typed: Option<&str>) -> Option<Value> {
    let typed = typed.map(str::trim).filter(|t| !t.is_empty());
    match &field.kind {
        FieldKind::Choice { values, multiple } => {
            let picked: Vec<Value> = chosen
                .iter()
                .filter_map(|title| values.iter().find(|(_, t)| t == title))
                .map(|(value, _)| json!(value))
                .collect();
            match (multiple, picked.as_slice()) {
                (true, _) => Some(Value::Array(picked)),
                (false, [one, ..]) => Some(one.clone()),
                (false, []) => None,
            }
        }
        FieldKind::Flag => chosen.first().map(|c| json!(c == YES)),
        FieldKind::Number { integer: true } => typed?.parse::<i64>().ok().map(|n| json!(n)),
        FieldKind::Number { integer: false } => typed?.parse::<f64>().ok().map(|n| json!(n)),
        FieldKind::Text => typed
            .or(chosen.first().map(String::as_str))
            .map(|t| json!(t)),
    }
}

/// The options a yes-or-no field is asked with.
pub const YES: &str = "Yes";
pub const NO: &str = "No";

/// The agent's answer: the content it asked for.
pub fn accepted(content: Map<String, Value>) -> Value {
    json!({"action": "accept", "content": content})
}
