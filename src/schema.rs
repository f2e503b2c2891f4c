//! The JSON Schemas Tandem publishes in `schemas/`, generated from its own types: the
//! `tandem.json` config, agent and command Markdown frontmatter, the todo item, and each
//! built-in tool's input. `tandem schema --write` regenerates them.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde_json::Value;

use crate::config::{AgentConfig, CommandConfig, Config};
use crate::todo::Todo;
use crate::tool::Registry;

/// Every schema, by its file name under `schemas/`.
pub fn all() -> Vec<(String, Value)> {
    let mut schemas = vec![
        titled::<Config>("tandem.json", "Tandem configuration (tandem.json)"),
        titled::<AgentConfig>(
            "agent.json",
            "Tandem agent (Markdown frontmatter or `agent` entry)",
        ),
        titled::<CommandConfig>(
            "command.json",
            "Tandem slash command (Markdown frontmatter or `command` entry)",
        ),
        titled::<Todo>("todo.json", "A todo list item (OpenCode's Todo.Info)"),
    ];
    for spec in Registry::builtin().specs(|_| true, &[]) {
        let mut schema = spec.parameters.clone();
        if let Value::Object(map) = &mut schema {
            map.insert(
                "$schema".into(),
                "https://json-schema.org/draft/2020-12/schema".into(),
            );
            map.insert(
                "title".into(),
                format!("Input of the `{}` tool", spec.name).into(),
            );
        }
        schemas.push((format!("tools/{}.json", spec.name), schema));
    }
    schemas
}

fn titled<T: JsonSchema>(file: &str, title: &str) -> (String, Value) {
    let mut schema = schemars::schema_for!(T).to_value();
    if let Value::Object(map) = &mut schema {
        map.insert("title".into(), title.into());
    }
    offer_permission_keys(&mut schema);
    (file.to_owned(), schema)
}

/// A `permission` block offers the built-in keys by name, each with what it governs (any
/// other key, a custom or MCP tool's name, is still taken).
fn offer_permission_keys(schema: &mut Value) {
    let Some(by_key) = schema
        .pointer_mut("/$defs/PermissionConfig/anyOf")
        .and_then(Value::as_array_mut)
        .and_then(|branches| branches.iter_mut().find(|b| b["type"] == "object"))
    else {
        return;
    };
    let properties: serde_json::Map<String, Value> = crate::permission::keys::BUILT_IN
        .iter()
        .map(|(key, governs)| {
            let rule =
                serde_json::json!({"$ref": "#/$defs/PermissionRule", "description": governs});
            ((*key).to_owned(), rule)
        })
        .collect();
    by_key["properties"] = Value::Object(properties);
}

/// A schema as it is written to disk: pretty JSON and a final newline.
pub fn render(schema: &Value) -> String {
    serde_json::to_string_pretty(schema).unwrap_or_default() + "\n"
}

/// Writes every schema under `dir`; returns the files written.
pub fn write(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (file, schema) in all() {
        let path = dir.join(&file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, render(&schema))?;
        written.push(path);
    }
    Ok(written)
}
