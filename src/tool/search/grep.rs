//! `grep`: a regex over file contents, in-process with ripgrep's crates, matches grouped by
//! file, newest files first, at most 100 matches.

use std::path::Path;

use futures::future::BoxFuture;
use grep_regex::RegexMatcher;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{GrepReport, LIMIT, glob_matcher, grep, skipped_metadata};
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, describe_search,
    input_schema, parse_input,
};

pub struct GrepTool;

/// The `grep` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression to search for.
    pub pattern: String,
    /// The directory to search in (default: the project).
    #[serde(default)]
    pub path: Option<String>,
    /// Only search files matching this glob.
    #[serde(default)]
    pub include: Option<String>,
}

impl Tool for GrepTool {
    fn name(&self) -> &'static str {
        "grep"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &[
            "search",
            "grepsearch",
            "searchfiles",
            "ripgrep",
            "rg",
            "searchfilecontent",
        ]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Grep".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Search
    }

    fn description(&self) -> &'static str {
        "Searches file contents with a regular expression (Rust regex syntax), showing matching \
         lines by file, newest files first, at most 100 matches. Respects .gitignore. `include` \
         filters files by glob (`*.rs`, `*.{ts,tsx}`); `path` is the directory to search."
    }

    fn parameters(&self) -> Value {
        input_schema::<GrepInput>()
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
            let input: GrepInput = parse_input(self.name(), input)?;
            let root = ctx
                .path_in_reach(input.path.as_deref().unwrap_or("."))
                .await?;
            ctx.ask(
                PermissionCheck::new(
                    keys::GREP,
                    vec![input.pattern.clone()],
                    format!("Search for {}", input.pattern),
                )
                .at(Location::file(root.clone())),
            )
            .await?;
            ctx.started();
            let matcher = RegexMatcher::new_line_matcher(&input.pattern).map_err(|e| {
                ToolError::failed(format!("Invalid regex `{}`: {e}", input.pattern))
            })?;
            let include = input.include.as_deref().map(glob_matcher).transpose()?;
            let walk_root = root.clone();
            let readable = ctx.readable();
            let GrepReport {
                files,
                total,
                skipped,
            } = tokio::task::spawn_blocking(move || {
                grep(&walk_root, &matcher, include.as_ref(), &readable)
            })
            .await
            .map_err(|e| ToolError::failed(format!("The search failed: {e}")))?;
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
            if let Some(note) = skipped.note() {
                output.push_str(&format!("\n\n{note}"));
            }
            Ok(ToolOutput {
                title: input.pattern,
                output,
                metadata: skipped_metadata(
                    json!({"matches": total, "truncated": total > LIMIT}),
                    &skipped,
                ),
                locations,
                ..Default::default()
            })
        })
    }
}
