//! A form someone else asks the person to fill in (an agent's or an MCP server's
//! `elicitation/create`), read from its JSON Schema: each property becomes a question the way
//! the `question` tool asks (its choices as options, yes or no for a flag, the person's own
//! words for text and numbers), and the answers are written back as the JSON it asked for.

use serde_json::{Map, Value};

use super::{Choice, Question, QuestionReply};

/// The options a yes-or-no field is asked with.
pub const YES: &str = "Yes";
pub const NO: &str = "No";
/// A question's header is kept short.
const HEADER: usize = 30;

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

/// A form to put to the person.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub message: String,
    pub fields: Vec<Field>,
}

/// The person's reply to a form.
#[derive(Debug, Clone, PartialEq)]
pub enum FormReply {
    /// Filled in: the answers by field name (fields left unanswered are left out).
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

impl Form {
    /// The form whose fields are the properties of `schema` (an object schema).
    pub fn from_schema(message: &str, schema: &Value) -> Self {
        let fields = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, property)| Field {
                name: name.clone(),
                title: text(property, "title").unwrap_or_else(|| name.clone()),
                description: text(property, "description"),
                kind: kind(property),
            })
            .collect();
        Form {
            message: message.to_owned(),
            fields,
        }
    }

    /// One question per field.
    pub fn questions(&self) -> Vec<Question> {
        self.fields
            .iter()
            .map(|field| {
                let options: Vec<String> = match &field.kind {
                    FieldKind::Choice { values, .. } => {
                        values.iter().map(|(_, t)| t.clone()).collect()
                    }
                    FieldKind::Flag => vec![YES.into(), NO.into()],
                    _ => Vec::new(),
                };
                Question {
                    question: field
                        .description
                        .clone()
                        .unwrap_or_else(|| self.message.clone()),
                    header: field.title.chars().take(HEADER).collect(),
                    custom: options.is_empty(),
                    options: options
                        .into_iter()
                        .map(|label| Choice {
                            label,
                            description: String::new(),
                        })
                        .collect(),
                    multiple: matches!(field.kind, FieldKind::Choice { multiple: true, .. }),
                }
            })
            .collect()
    }

    /// The person's reply to `questions()` as the form's answer.
    pub fn answers(&self, reply: QuestionReply) -> FormReply {
        match reply {
            QuestionReply::Answered(answers) => FormReply::Accept(
                self.fields
                    .iter()
                    .zip(&answers)
                    .filter_map(|(field, answer)| {
                        let value = value(field, &answer.chosen, answer.typed.as_deref())?;
                        Some((field.name.clone(), value))
                    })
                    .collect(),
            ),
            QuestionReply::Declined => FormReply::Decline,
            _ => FormReply::Cancel,
        }
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value[key]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// The kind of answer a property takes.
fn kind(property: &Value) -> FieldKind {
    match property["type"].as_str() {
        Some("boolean") => FieldKind::Flag,
        Some("integer") => FieldKind::Number { integer: true },
        Some("number") => FieldKind::Number { integer: false },
        Some("array") => {
            choices(&property["items"]).map_or(FieldKind::Text, |values| FieldKind::Choice {
                values,
                multiple: true,
            })
        }
        _ => choices(property).map_or(FieldKind::Text, |values| FieldKind::Choice {
            values,
            multiple: false,
        }),
    }
}

/// A string schema's choices as (value, title): `enum` (with the legacy `enumNames`), or
/// `oneOf`/`anyOf` of `{const, title}`.
fn choices(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = schema["enum"].as_array() {
        let names = schema["enumNames"].as_array();
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(n, v)| {
                    let value = v.as_str()?.to_owned();
                    let title = names
                        .and_then(|names| names.get(n)?.as_str())
                        .map_or_else(|| value.clone(), str::to_owned);
                    Some((value, title))
                })
                .collect(),
        );
    }
    let options = schema["oneOf"].as_array().or(schema["anyOf"].as_array())?;
    Some(
        options
            .iter()
            .filter_map(|o| {
                let value = o["const"].as_str()?.to_owned();
                let title = text(o, "title").unwrap_or_else(|| value.clone());
                Some((value, title))
            })
            .collect(),
    )
}

/// The value of `field` from the person's answer: the chosen titles (`chosen`) or their own
/// words (`typed`); `None` when they gave none that fits.
pub fn value(field: &Field, chosen: &[String], typed: Option<&str>) -> Option<Value> {
    let typed = typed.map(str::trim).filter(|t| !t.is_empty());
    match &field.kind {
        FieldKind::Choice { values, multiple } => {
            let mut picked: Vec<String> = chosen
                .iter()
                .filter_map(|title| values.iter().find(|(_, t)| t == title))
                .map(|(value, _)| value.clone())
                .collect();
            match multiple {
                true => Some(Value::from(picked)),
                false if picked.is_empty() => None,
                false => Some(Value::String(picked.swap_remove(0))),
            }
        }
        FieldKind::Flag => chosen.first().map(|c| Value::Bool(c == YES)),
        FieldKind::Number { integer: true } => typed?.parse::<i64>().ok().map(Value::from),
        FieldKind::Number { integer: false } => typed?
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        FieldKind::Text => typed
            .or(chosen.first().map(String::as_str))
            .map(|t| Value::String(t.to_owned())),
    }
}
