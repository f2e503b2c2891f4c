//! An agent's `elicitation/create` form in Tandem's terms: each property of its requested
//! schema becomes a field Tandem can put to the person as a question, and the person's answers
//! are written back as the content the agent asked for.

use std::collections::BTreeMap;

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, ElicitationContentValue as Content, ElicitationMode,
    ElicitationPropertySchema, EnumOption, MultiSelectItems, StringPropertySchema,
};

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

/// The form of an `elicitation/create` request (`None` for a URL request or another mode).
pub fn read(request: &CreateElicitationRequest) -> Option<Form> {
    let ElicitationMode::Form(form) = &request.mode else {
        return None;
    };
    let fields = form
        .requested_schema
        .properties
        .iter()
        .map(|(name, property)| {
            let (title, description, kind) = describe(property);
            Field {
                name: name.clone(),
                title: title.unwrap_or_else(|| name.clone()),
                description,
                kind,
            }
        })
        .collect();
    Some(Form {
        message: request.message.clone(),
        fields,
    })
}

/// A property's title, description and kind of answer.
fn describe(property: &ElicitationPropertySchema) -> (Option<String>, Option<String>, FieldKind) {
    use ElicitationPropertySchema as P;
    match property {
        P::String(text) => (
            text.title.clone(),
            text.description.clone(),
            one_of(text).map_or(FieldKind::Text, |values| FieldKind::Choice {
                values,
                multiple: false,
            }),
        ),
        P::Number(n) => (
            n.title.clone(),
            n.description.clone(),
            FieldKind::Number { integer: false },
        ),
        P::Integer(n) => (
            n.title.clone(),
            n.description.clone(),
            FieldKind::Number { integer: true },
        ),
        P::Boolean(flag) => (
            flag.title.clone(),
            flag.description.clone(),
            FieldKind::Flag,
        ),
        P::Array(many) => {
            let values = match &many.items {
                MultiSelectItems::String(items) => Some(
                    items
                        .values
                        .iter()
                        .map(|v| (v.clone(), v.clone()))
                        .collect(),
                ),
                MultiSelectItems::Titled(items) => Some(titled(&items.options)),
                _ => None,
            };
            let kind = values.map_or(FieldKind::Text, |values| FieldKind::Choice {
                values,
                multiple: true,
            });
            (many.title.clone(), many.description.clone(), kind)
        }
        _ => (None, None, FieldKind::Text),
    }
}

/// A string property's choices, when it offers some.
fn one_of(text: &StringPropertySchema) -> Option<Vec<(String, String)>> {
    if let Some(values) = &text.enum_values {
        return Some(values.iter().map(|v| (v.clone(), v.clone())).collect());
    }
    text.one_of.as_deref().map(titled)
}

fn titled(options: &[EnumOption]) -> Vec<(String, String)> {
    options
        .iter()
        .map(|o| (o.value.clone(), o.title.clone()))
        .collect()
}

/// The value of `field` from the person's answer: the chosen titles (`chosen`) or their own
/// words (`typed`); `None` when they gave none that fits.
pub fn value(field: &Field, chosen: &[String], typed: Option<&str>) -> Option<Content> {
    let typed = typed.map(str::trim).filter(|t| !t.is_empty());
    match &field.kind {
        FieldKind::Choice { values, multiple } => {
            let mut picked: Vec<String> = chosen
                .iter()
                .filter_map(|title| values.iter().find(|(_, t)| t == title))
                .map(|(value, _)| value.clone())
                .collect();
            match multiple {
                true => Some(Content::StringArray(picked)),
                false if picked.is_empty() => None,
                false => Some(Content::String(picked.swap_remove(0))),
            }
        }
        FieldKind::Flag => chosen.first().map(|c| Content::Boolean(c == YES)),
        FieldKind::Number { integer: true } => typed?.parse::<i64>().ok().map(Content::Integer),
        FieldKind::Number { integer: false } => typed?.parse::<f64>().ok().map(Content::Number),
        FieldKind::Text => typed
            .or(chosen.first().map(String::as_str))
            .map(|t| Content::String(t.to_owned())),
    }
}

/// The options a yes-or-no field is asked with.
pub const YES: &str = "Yes";
pub const NO: &str = "No";

/// The person's answers, by field name.
pub type Answers = BTreeMap<String, Content>;
