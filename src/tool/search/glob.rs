//! `glob`: files matching a pattern under a directory, newest first, at most 100.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{glob_matcher, newest_first, skipped_metadata, walk_files};
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, describe_search,
    input_schema, parse_input,
};

const LIMIT: usize = 100;

pub struct GlobTool;

/// The `glob` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob to match file paths against.
    pub pattern: String,
    /// The directory to search in (default: the project).
    #[serde(default)]
    pub path: Option<String>,
}

impl Tool for GlobTool {
    fn name(&self) -> &'static str {
        "glob"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["findfiles", "filesearch", "globsearch"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Glob".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Search
    }

    fn description(&self) -> &'static str {
        "Finds files by name pattern (`**/*.rs`, `src/**/test_*.py`), newest first, at most 100. \
         Respects .gitignore. `path` is the directory to search (default: the project)."
    }

    fn parameters(&self) -> Value {
        input_schema::<GlobInput>()
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
            let input: GlobInput = parse_input(self.name(), input)?;
            let root = ctx
                .path_in_reach(input.path.as_deref().unwrap_or("."))
                .await?;
            ctx.ask(
                PermissionCheck::new(
                    keys::GLOB,
                    vec![input.pattern.clone()],
                    format!("Find {}", input.pattern),
                )
                .at(Location::file(root.clone())),
            )
            .await?;
            ctx.started();
            let matcher = glob_matcher(&input.pattern)?;
            let walk_root = root.clone();
            let readable = ctx.readable();
            let (mut found, skipped) = tokio::task::spawn_blocking(move || {
                walk_files(&walk_root, |rel| matcher.is_match(rel), &readable)
            })
            .await
            .map_err(|e| ToolError::failed(format!("The search failed: {e}")))?;
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
            if let Some(note) = skipped.note() {
                lines.push(String::new());
                lines.push(note);
            }
            Ok(ToolOutput {
                title: input.pattern,
                output: lines.join("\n"),
                metadata: skipped_metadata(
                    json!({"count": total, "truncated": total > LIMIT}),
                    &skipped,
                ),
                locations: vec![Location::file(root)],
                ..Default::default()
            })
        })
    }
}
