//! `grep`: a regex over file contents, in-process with ripgrep's crates, matches grouped by
//! file, newest files first, at most 100 matches.

use std::path::Path;

use futures::future::BoxFuture;
use grep_regex::RegexMatcher;
use serde::Deserialize;
use serde_json::{Value, json};

use super::search::{LIMIT, glob_matcher, grep};
use super::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolOutput, describe_search, parse_input,
};
use crate::message::Location;

pub struct GrepTool;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    include: Option<String>,
}

impl Tool for GrepTool {
    fn name(&self) -> &'static str {
        "grep"
    }

    fn description(&self) -> &'static str {
        "Searches file contents with a regular expression (Rust regex syntax), showing matching \
         lines by file, newest files first, at most 100 matches. Respects .gitignore. `include` \
         filters files by glob (`*.rs`, `*.{ts,tsx}`); `path` is the directory to search."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "The regular expression to search for."},
                "path": {"type": "string", "description": "The directory to search in (default: the project)."},
                "include": {"type": "string", "description": "Only search files matching this glob."}
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
                    "grep",
                    vec![input.pattern.clone()],
                    format!("Search for {}", input.pattern),
                )
                .at(Location::file(root.clone())),
            )
            .await?;
            let matcher = RegexMatcher::new_line_matcher(&input.pattern)
                .map_err(|e| ToolError(format!("Invalid regex `{}`: {e}", input.pattern)))?;
            let include = input
                .include
                .as_deref()
                .map(glob_matcher)
                .transpose()
                .map_err(ToolError)?;
            let walk_root = root.clone();
            let (files, total) =
                tokio::task::spawn_blocking(move || grep(&walk_root, &matcher, include.as_ref()))
                    .await
                    .map_err(|e| ToolError(format!("The search failed: {e}")))?;
            let mut output = if total == 0 {
                "No files found".to_owned()
            } else {
                format!("Found {total} matches")
            };
            let mut shown = 0;
            let mut locations = Vec::new();
            for file in &files {
                if shown >= LIMIT {
                    break;
                }
                output.push_str(&format!("\n\n{}:", file.path.display()));
                for (line, text) in &file.lines {
                    if shown >= LIMIT {
                        break;
                    }
                    output.push_str(&format!("\n  Line {line}: {text}"));
                    if locations.len() < 20 {
                        locations.push(Location {
                            path: file.path.clone(),
                            line: Some(*line as u32),
                        });
                    }
                    shown += 1;
                }
            }
            if total > LIMIT {
                output.push_str(&format!("\n\n(Results are truncated: showing {LIMIT} of {total} matches. Use a more specific pattern, path or include.)"));
            }
            Ok(ToolOutput {
                title: input.pattern,
                output,
                metadata: json!({"matches": total, "truncated": total > LIMIT}),
                locations,
                ..Default::default()
            })
        })
    }
}
