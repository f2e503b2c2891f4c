//! `glob`: files matching a pattern under a directory, newest first, at most 100.

use std::path::Path;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};

use super::search::{glob_matcher, newest_first, walk_files};
use super::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolOutput, describe_search, parse_input,
};
use crate::message::Location;

const LIMIT: usize = 100;

pub struct GlobTool;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
}

impl Tool for GlobTool {
    fn name(&self) -> &'static str {
        "glob"
    }

    fn description(&self) -> &'static str {
        "Finds files by name pattern (`**/*.rs`, `src/**/test_*.py`), newest first, at most 100. \
         Respects .gitignore. `path` is the directory to search (default: the project)."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "The glob to match file paths against."},
                "path": {"type": "string", "description": "The directory to search in (default: the project)."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        describe_search(input, cwd)
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: Input = parse_input(self.name(), input)?;
            let root = ctx
                .path_in_reach(input.path.as_deref().unwrap_or("."))
                .await?;
            ctx.ask(
                PermissionCheck::new(
                    "glob",
                    vec![input.pattern.clone()],
                    format!("Find {}", input.pattern),
                )
                .at(Location::file(root.clone())),
            )
            .await?;
            let matcher = glob_matcher(&input.pattern).map_err(ToolError)?;
            let walk_root = root.clone();
            let mut found = tokio::task::spawn_blocking(move || {
                walk_files(&walk_root, |rel| matcher.is_match(rel))
            })
            .await
            .map_err(|e| ToolError(format!("The search failed: {e}")))?;
            newest_first(&mut found);
            let total = found.len();
            let mut lines: Vec<String> = found
                .iter()
                .take(LIMIT)
                .map(|f| f.path.display().to_string())
                .collect();
            if lines.is_empty() {
                lines.push("No files found".into());
            } else if total > LIMIT {
                lines.push(String::new());
                lines.push(format!("(Results are truncated: showing the {LIMIT} newest of {total} files. Use a more specific path or pattern.)"));
            }
            Ok(ToolOutput {
                title: input.pattern,
                output: lines.join("\n"),
                metadata: json!({"count": total, "truncated": total > LIMIT}),
                locations: vec![Location::file(root)],
                ..Default::default()
            })
        })
    }
}
