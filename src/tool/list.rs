//! `list`: the entries of one directory, directories first. Read-only and harmless; the
//! recursive tree listing with ignore rules replaces it with the coding tools.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, ToolOutput, parse_input};

/// Entries beyond this are summarised, so a huge directory cannot flood the context.
const MAX_ENTRIES: usize = 500;

pub struct ListTool;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    #[serde(default)]
    path: Option<String>,
}

impl Tool for ListTool {
    fn name(&self) -> &'static str {
        "list"
    }

    fn description(&self) -> &'static str {
        "Lists the files and directories directly inside a directory (directories end with '/'). \
         `path` is absolute or relative to the project; it defaults to the project root."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The directory to list; defaults to the project root."}
            },
            "additionalProperties": false
        })
    }

    fn title(&self, input: &Value) -> String {
        input
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or(".")
            .to_owned()
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: Input = parse_input(self.name(), input)?;
            let shown = input.path.unwrap_or_else(|| ".".into());
            let dir = ctx.resolve(&shown);
            let mut reader = tokio::fs::read_dir(&dir)
                .await
                .map_err(|e| ToolError(format!("Cannot list {}: {e}", dir.display())))?;
            let mut dirs = Vec::new();
            let mut files = Vec::new();
            while let Some(entry) = reader
                .next_entry()
                .await
                .map_err(|e| ToolError(format!("Cannot list {}: {e}", dir.display())))?
            {
                let name = entry.file_name().to_string_lossy().into_owned();
                match entry.file_type().await {
                    Ok(kind) if kind.is_dir() => dirs.push(format!("{name}/")),
                    _ => files.push(name),
                }
            }
            dirs.sort();
            files.sort();
            let total = dirs.len() + files.len();
            let mut lines: Vec<String> = dirs.into_iter().chain(files).take(MAX_ENTRIES).collect();
            if total > MAX_ENTRIES {
                lines.push(format!("… and {} more entries", total - MAX_ENTRIES));
            }
            let output = if lines.is_empty() {
                format!("{} is empty", dir.display())
            } else {
                format!("{}\n{}", dir.display(), lines.join("\n"))
            };
            Ok(ToolOutput {
                title: shown,
                output,
                metadata: json!({"count": total}),
            })
        })
    }
}
