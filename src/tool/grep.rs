//! `grep`: a regex over file contents, in-process with ripgrep's crates, matches grouped by
//! file, newest files first, at most 100 matches.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use grep_regex::RegexMatcher;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde::Deserialize;
use serde_json::{Value, json};

use super::search::{glob_matcher, newest_first, walk_files};
use super::{PermissionCheck, Tool, ToolContext, ToolError, ToolOutput, input_str, parse_input};
use crate::message::Location;

const LIMIT: usize = 100;
const MAX_LINE_CHARS: usize = 2000;

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

struct FileMatches {
    path: PathBuf,
    lines: Vec<(u64, String)>,
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
        let title = input_str(input, "pattern").unwrap_or_default().to_owned();
        let dir = super::context::resolve_in(cwd, input_str(input, "path").unwrap_or("."));
        (title, vec![Location::file(dir)])
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
            ctx.ask(PermissionCheck {
                permission: "grep".into(),
                patterns: vec![input.pattern.clone()],
                always: vec!["*".into()],
                title: format!("Search for {}", input.pattern),
                locations: vec![Location::file(root.clone())],
                diffs: vec![],
            })
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
                tokio::task::spawn_blocking(move || search(&walk_root, &matcher, include.as_ref()))
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

/// Matching lines per file, newest files first, and the total count.
fn search(
    root: &Path,
    matcher: &RegexMatcher,
    include: Option<&globset::GlobMatcher>,
) -> (Vec<FileMatches>, usize) {
    let mut found = walk_files(root, |rel| {
        include.is_none_or(|g| g.is_match(rel) || rel.file_name().is_some_and(|n| g.is_match(n)))
    });
    newest_first(&mut found);
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build();
    let mut files = Vec::new();
    let mut total = 0usize;
    for file in found {
        let mut lines = Vec::new();
        let _ = searcher.search_path(
            matcher,
            &file.path,
            UTF8(|line, text| {
                total += 1;
                if total <= LIMIT {
                    let text = text.trim_end_matches(['\n', '\r']);
                    let text = match text.char_indices().nth(MAX_LINE_CHARS) {
                        Some((cut, _)) => format!("{}...", &text[..cut]),
                        None => text.to_owned(),
                    };
                    lines.push((line, text));
                }
                Ok(true)
            }),
        );
        if !lines.is_empty() {
            files.push(FileMatches {
                path: file.path,
                lines,
            });
        }
    }
    (files, total)
}
