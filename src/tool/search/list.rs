//! `list`: a tree of the files under a directory, skipping the usual build and dependency
//! folders, .gitignore'd and hidden files, and any `ignore` globs; at most 100 files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Skipped, glob_matcher, skipped_metadata};
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, input_str,
    parse_input,
};

const LIMIT: usize = 100;
/// Directories never worth listing.
const IGNORED_DIRS: &[&str] = &[
    "node_modules",
    "__pycache__",
    ".git",
    "dist",
    "build",
    "target",
    "vendor",
    "bin",
    "obj",
    ".idea",
    ".vscode",
    ".zig-cache",
    "zig-out",
    ".coverage",
    "coverage",
    "tmp",
    "temp",
    ".cache",
    "cache",
    "logs",
    ".venv",
    "venv",
    "env",
];

pub struct ListTool;

/// The `list` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListInput {
    /// The directory to list (default: the project).
    #[serde(default)]
    pub path: Option<String>,
    /// Globs of paths to skip.
    #[serde(default)]
    pub ignore: Vec<String>,
}

impl Tool for ListTool {
    fn name(&self) -> &'static str {
        "list"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["ls", "listdir", "listdirectory", "listfiles"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("LS".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Search
    }

    fn description(&self) -> &'static str {
        "Lists the files under a directory as a tree (at most 100), skipping dependency and build \
         folders and .gitignore'd files. `path` defaults to the project; `ignore` adds globs to skip. \
         Prefer glob and grep when you know what you are looking for."
    }

    fn parameters(&self) -> Value {
        input_schema::<ListInput>()
    }

    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        let shown = input_str(input, "path").unwrap_or(".");
        let dir = crate::paths::resolve_in(cwd, shown);
        (
            crate::paths::relative_to(cwd, &dir),
            vec![Location::file(dir)],
        )
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: ListInput = parse_input(self.name(), input)?;
            let root = ctx
                .path_in_reach(input.path.as_deref().unwrap_or("."))
                .await?;
            let relative = ctx.relative(&root);
            if !root.is_dir() {
                return Err(ToolError::failed(format!(
                    "{} is not a directory.",
                    root.display()
                )));
            }
            ctx.ask(
                PermissionCheck::new(
                    keys::LIST,
                    vec![relative.clone()],
                    format!("List {relative}"),
                )
                .at(Location::file(root.clone())),
            )
            .await?;
            ctx.started();
            let ignores = input
                .ignore
                .iter()
                .map(|g| glob_matcher(g))
                .collect::<Result<Vec<_>, _>>()?;
            let walk_root = root.clone();
            let readable = ctx.readable();
            let (files, total, skipped) =
                tokio::task::spawn_blocking(move || collect(&walk_root, &ignores, &readable))
                    .await
                    .map_err(|e| ToolError::failed(format!("The listing failed: {e}")))?;
            let mut output = format!("{}/\n{}", root.display(), render(&files));
            if total > LIMIT {
                output.push_str(&format!("\n(Showing {LIMIT} of {total} files. List a subdirectory or use glob to see more.)"));
            }
            if let Some(note) = skipped.note() {
                output.push_str(&format!("\n{note}"));
            }
            Ok(ToolOutput {
                title: relative,
                output,
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

/// Up to `LIMIT` file paths relative to `root` (sorted), how many there were in all, and what
/// could not be read or was withheld (files `readable` refuses are not shown).
fn collect(
    root: &Path,
    ignores: &[globset::GlobMatcher],
    readable: &dyn Fn(&Path) -> bool,
) -> (Vec<PathBuf>, usize, Skipped) {
    let walker = ignore::WalkBuilder::new(root)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| IGNORED_DIRS.contains(&n)))
        })
        .build();
    let mut files = Vec::new();
    let mut total = 0;
    let mut skipped = Skipped::default();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                skipped.add(error.to_string());
                continue;
            }
        };
        if let Some(error) = entry.error() {
            skipped.add(error.to_string());
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .to_owned();
        if ignores.iter().any(|g| g.is_match(&rel)) {
            continue;
        }
        if !readable(entry.path()) {
            skipped.withheld += 1;
            continue;
        }
        total += 1;
        if files.len() < LIMIT {
            files.push(rel);
        }
    }
    files.sort();
    (files, total, skipped)
}

/// An indented tree: directories with a trailing `/`, files beneath them.
fn render(files: &[PathBuf]) -> String {
    #[derive(Default)]
    struct Dir {
        dirs: BTreeMap<String, Dir>,
        files: Vec<String>,
    }
    let mut top = Dir::default();
    for file in files {
        let mut dir = &mut top;
        let parts: Vec<String> = file
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let Some((name, parents)) = parts.split_last() else {
            continue;
        };
        for parent in parents {
            dir = dir.dirs.entry(parent.clone()).or_default();
        }
        dir.files.push(name.clone());
    }
    fn write(dir: &Dir, depth: usize, out: &mut String) {
        let indent = "  ".repeat(depth + 1);
        for (name, sub) in &dir.dirs {
            out.push_str(&format!("{indent}{name}/\n"));
            write(sub, depth + 1, out);
        }
        for name in &dir.files {
            out.push_str(&format!("{indent}{name}\n"));
        }
    }
    let mut out = String::new();
    write(&top, 0, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_tree() {
        let files: Vec<PathBuf> = ["README.md", "src/main.rs", "src/tool/a.rs"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(
            render(&files),
            "  src/\n    tool/\n      a.rs\n    main.rs\n  README.md\n"
        );
    }
}
