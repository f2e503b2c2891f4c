//! Tool inputs as Rust types: the JSON Schema the model is offered is generated from the type
//! (schemars), and the model's arguments are parsed into it with an error naming the field.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use schemars::transform::{Transform, transform_subschemas};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolError;

/// The JSON Schema of `T` as a model is offered it: an object schema with every definition
/// inlined, without a title or `$schema`, and without the null types and integer formats that
/// some providers reject (absent optional fields take their defaults).
pub fn input_schema<T: JsonSchema>() -> Value {
    let mut generator = SchemaSettings::draft07()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.root_schema_for::<T>();
    ForModels.transform(&mut schema);
    if let Some(object) = schema.as_object_mut() {
        object.remove("title");
        object.remove("description");
    }
    schema.to_value()
}

/// Simplifies a schema for model providers, recursively.
struct ForModels;

impl Transform for ForModels {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        if let Some(object) = schema.as_object_mut() {
            if let Some(Value::Array(types)) = object.get("type") {
                let kept: Vec<Value> = types
                    .iter()
                    .filter(|t| t.as_str() != Some("null"))
                    .cloned()
                    .collect();
                let single = (kept.len() == 1).then(|| kept[0].clone());
                object.insert("type".into(), single.unwrap_or(Value::Array(kept)));
            }
            if object.get("default") == Some(&Value::Null) {
                object.remove("default");
            }
            if object.get("type").and_then(Value::as_str) == Some("integer") {
                object.remove("format");
            }
        }
        transform_subschemas(self, schema);
    }
}

/// Parses a tool's arguments into its input type, repairing what models commonly get wrong
/// (see `arguments`); a mismatch left is one error for the model that names the field
/// (`offset`, `todos[1].status`) and says what was expected.
pub fn parse_input<T: DeserializeOwned + JsonSchema>(
    tool: &str,
    input: Value,
) -> Result<T, ToolError> {
    match strictly(tool, &input) {
        Ok(parsed) => Ok(parsed),
        Err(error) => match super::arguments::repaired(&input_schema::<T>(), &input) {
            Some(fixed) => strictly(tool, &fixed),
            None => Err(error),
        },
    }
}

fn strictly<T: DeserializeOwned>(tool: &str, input: &Value) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(input).map_err(|error| {
        let path = error.path().to_string();
        ToolError::InvalidInput {
            tool: tool.to_owned(),
            field: (path != ".").then_some(path),
            reason: error.into_inner().to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Sample {
        /// The file.
        file_path: String,
        /// The first line.
        #[serde(default)]
        #[schemars(range(min = 1))]
        offset: Option<usize>,
    }

    #[test]
    fn the_schema_is_plain_json_schema_for_models() {
        assert_eq!(
            input_schema::<Sample>(),
            json!({
                "type": "object",
                "properties": {
                    "filePath": {"description": "The file.", "type": "string"},
                    "offset": {"description": "The first line.", "type": "integer", "minimum": 1}
                },
                "additionalProperties": false,
                "required": ["filePath"]
            })
        );
    }

    #[test]
    fn a_wrong_argument_is_named() {
        let right = parse_input::<Sample>("read", json!({"filePath": "a", "offset": 3})).unwrap();
        assert_eq!((right.file_path.as_str(), right.offset), ("a", Some(3)));
        let error = parse_input::<Sample>("read", json!({"filePath": "a", "offset": "x"}))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`offset`: invalid type: string \"x\""),
            "{error}"
        );
        let error = parse_input::<Sample>("read", json!({}))
            .unwrap_err()
            .to_string();
        assert!(error.contains("missing field `filePath`"), "{error}");
        let repaired = parse_input::<Sample>("read", json!({"file_path": "a", "offset": "2"}));
        assert_eq!(repaired.unwrap().offset, Some(2));
        let error = parse_input::<Sample>("read", json!({"file_path": "a", "offset": true}))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`offset`: invalid type: boolean `true`, expected usize"),
            "{error}"
        );
    }
}
