//! `apply_patch`: adds, deletes, updates and moves files from one `*** Begin Patch`
//! envelope, asking once for all of them with one whole-file diff per file.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::endings::Normalized;
use super::file::{current_text, remove, write_text};
use super::ledger::{self, Change as Seen};
use super::patch;
use super::patch::FileOp;
use super::settle::settle;
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{
    FileDiff, Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput,
    input_schema, parse_input,
};

pub struct ApplyPatchTool;

/// The `apply_patch` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyPatchInput {
    /// The whole patch, from *** Begin Patch to *** End Patch.
    pub patch_text: String,
}

/// One file's planned change.
struct Change {
    diff: FileDiff,
    /// Where the old file was, when it moves or is deleted.
    remove: Option<std::path::PathBuf>,
    /// The names edit rules judge: each path as given and as it really is.
    names: Vec<String>,
}

impl Tool for ApplyPatchTool {
    fn name(&self) -> &'static str {
        "apply_patch"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["patch", "applydiff"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Edit".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn permission(&self) -> &'static str {
        "edit"
    }

    fn description(&self) -> &'static str {
        "Applies a patch to one or more files. Format:\n*** Begin Patch\n*** Add File: path\n+new line\n\
         *** Delete File: path\n*** Update File: path\n*** Move to: new/path (optional)\n@@ optional context\n \
         unchanged line\n-removed line\n+added line\n*** End of File (optional: the hunk ends the file)\n\
         *** End Patch\nPaths are relative to the project. Keep three lines of context around each \
         change; an `@@` line names a line above the hunk (a function or class) when the same lines \
         occur more than once. The patch is all or nothing: if any hunk does not fit, no file is \
         changed and the error shows the file's nearest lines."
    }

    fn parameters(&self) -> Value {
        input_schema::<ApplyPatchInput>()
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: ApplyPatchInput = parse_input(self.name(), input)?;
            let ops = patch::parse(&input.patch_text).map_err(ToolError::Failed)?;
            let mut paths: Vec<_> = ops
                .iter()
                .flat_map(FileOp::paths)
                .map(|p| ctx.resolve(p))
                .collect();
            paths.sort();
            paths.dedup();
            let mut _one_at_a_time = Vec::with_capacity(paths.len());
            for path in &paths {
                _one_at_a_time.push(ledger::lock(path).await);
            }
            let mut changes = Vec::new();
            for op in ops {
                changes.push(plan(ctx, op).await?);
            }
            let relatives: Vec<String> =
                changes.iter().map(|c| ctx.relative(&c.diff.path)).collect();
            let locations: Vec<Location> = changes
                .iter()
                .map(|c| Location::file(c.diff.path.clone()))
                .collect();
            let mut diffs: Vec<FileDiff> = changes.iter().map(|c| c.diff.clone()).collect();
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(
                    keys::EDIT,
                    changes.iter().flat_map(|c| c.names.clone()).collect(),
                )],
                title: format!("Patch {}", relatives.join(", ")),
                locations: locations.clone(),
                diffs: diffs.clone(),
            })
            .await?;
            ctx.started();
            let mut summary = Vec::new();
            let mut notes = Vec::new();
            for ((change, relative), diff) in changes.iter().zip(&relatives).zip(&mut diffs) {
                let deleted = change.remove.as_ref() == Some(&change.diff.path);
                if !deleted {
                    write_text(ctx, &change.diff.path, &change.diff.new_text).await?;
                    ctx.files.saw(&change.diff.path, &change.diff.new_text);
                    let settled = settle(ctx, &change.diff.path, &change.diff.new_text).await;
                    diff.new_text = settled.text;
                    notes.extend(settled.notes);
                }
                if let Some(old) = &change.remove {
                    remove(old).await?;
                    ctx.files.forget(old);
                }
                let verb = match (&change.diff.old_text, deleted) {
                    (_, true) => "D",
                    (None, _) => "A",
                    _ => "M",
                };
                summary.push(format!("{verb} {relative}"));
            }
            Ok(ToolOutput {
                title: relatives.join(", "),
                output: format!("Patch applied:\n{}", summary.join("\n"))
                    + &notes.iter().map(|n| format!("\n\n{n}")).collect::<String>(),
                metadata: json!({"files": relatives}),
                diffs,
                locations,
                ..Default::default()
            })
        })
    }
}

async fn plan(ctx: &ToolContext, op: FileOp) -> Result<Change, ToolError> {
    Ok(match op {
        FileOp::Add {
            path: given,
            content,
        } => {
            let path = ctx.path_in_reach(&given).await?;
            let old_text = seen_text(ctx, &path).await?;
            Change {
                names: ctx.rule_names(&given, &path),
                diff: FileDiff {
                    path,
                    old_text,
                    new_text: content,
                },
                remove: None,
            }
        }
        FileOp::Delete { path: given } => {
            let path = ctx.path_in_reach(&given).await?;
            let old = seen_text(ctx, &path).await?.ok_or_else(|| {
                ToolError::failed(format!("Cannot delete {}: no such file.", path.display()))
            })?;
            Change {
                diff: FileDiff {
                    path: path.clone(),
                    old_text: Some(old),
                    new_text: String::new(),
                },
                names: ctx.rule_names(&given, &path),
                remove: Some(path),
            }
        }
        FileOp::Update {
            path,
            move_to,
            hunks,
        } => plan_update(ctx, &path, move_to, &hunks).await?,
    })
}

/// The file's text, if it exists, once the ledger agrees the model's view of it is current.
async fn seen_text(ctx: &ToolContext, path: &Path) -> Result<Option<String>, ToolError> {
    let text = current_text(ctx, path).await?;
    ctx.files
        .check(path, &ctx.relative(path), text.as_deref(), Seen::Edit)?;
    Ok(text)
}

async fn plan_update(
    ctx: &ToolContext,
    path: &str,
    move_to: Option<String>,
    hunks: &[patch::Hunk],
) -> Result<Change, ToolError> {
    let from = ctx.path_in_reach(path).await?;
    let old = seen_text(ctx, &from).await?.ok_or_else(|| {
        ToolError::failed(format!(
            "Cannot update {}: no such file. Use `*** Add File:` to create it.",
            from.display()
        ))
    })?;
    let file = Normalized::new(&old);
    let replacements = patch::apply_hunks(&file.body, hunks, path).map_err(ToolError::Failed)?;
    let new_text = file.rebuild(&old, &replacements);
    let mut names = ctx.rule_names(path, &from);
    Ok(match move_to {
        Some(to_given) => {
            let to = ctx.path_in_reach(&to_given).await?;
            names.extend(ctx.rule_names(&to_given, &to));
            Change {
                diff: FileDiff {
                    old_text: seen_text(ctx, &to).await?,
                    path: to,
                    new_text,
                },
                remove: Some(from),
                names,
            }
        }
        None => Change {
            names,
            diff: FileDiff {
                path: from,
                old_text: Some(old),
                new_text,
            },
            remove: None,
        },
    })
}
