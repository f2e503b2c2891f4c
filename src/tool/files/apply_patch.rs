//! `apply_patch`: adds, deletes, updates and moves files from one `*** Begin Patch`
//! envelope, asking once for all of them with one whole-file diff per file.

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::file::{current_text, remove, write_text};
use super::patch;
use super::patch::FileOp;
use crate::message::Location;
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

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn permission(&self) -> &'static str {
        "edit"
    }

    fn description(&self) -> &'static str {
        "Applies a patch to one or more files. Format:\n*** Begin Patch\n*** Add File: path\n+new line\n\
         *** Delete File: path\n*** Update File: path\n*** Move to: new/path (optional)\n@@ optional context\n \
         unchanged line\n-removed line\n+added line\n*** End Patch\nPaths are relative to the project. \
         Keep three lines of context around each change."
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
            let diffs: Vec<FileDiff> = changes.iter().map(|c| c.diff.clone()).collect();
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(
                    "edit",
                    changes.iter().flat_map(|c| c.names.clone()).collect(),
                )],
                title: format!("Patch {}", relatives.join(", ")),
                locations: locations.clone(),
                diffs: diffs.clone(),
            })
            .await?;
            ctx.started();
            let mut summary = Vec::new();
            for (change, relative) in changes.iter().zip(&relatives) {
                let deleted = change.remove.as_ref() == Some(&change.diff.path);
                if !deleted {
                    write_text(ctx, &change.diff.path, &change.diff.new_text).await?;
                }
                if let Some(old) = &change.remove {
                    remove(old).await?;
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
                output: format!("Patch applied:\n{}", summary.join("\n")),
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
            let old_text = current_text(ctx, &path).await?;
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
            let old = current_text(ctx, &path).await?.ok_or_else(|| {
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
        } => {
            let from = ctx.path_in_reach(&path).await?;
            let old = current_text(ctx, &from).await?.ok_or_else(|| {
                ToolError::failed(format!(
                    "Cannot update {}: no such file. Use `*** Add File:` to create it.",
                    from.display()
                ))
            })?;
            let normalised = old.replace("\r\n", "\n");
            let mut new_text =
                patch::apply_hunks(&normalised, &hunks, &path).map_err(ToolError::Failed)?;
            if old.contains("\r\n") {
                new_text = new_text.replace('\n', "\r\n");
            }
            match move_to {
                Some(to_given) => {
                    let to = ctx.path_in_reach(&to_given).await?;
                    let mut names = ctx.rule_names(&path, &from);
                    names.extend(ctx.rule_names(&to_given, &to));
                    Change {
                        diff: FileDiff {
                            path: to,
                            old_text: None,
                            new_text,
                        },
                        remove: Some(from),
                        names,
                    }
                }
                None => Change {
                    names: ctx.rule_names(&path, &from),
                    diff: FileDiff {
                        path: from,
                        old_text: Some(old),
                        new_text,
                    },
                    remove: None,
                },
            }
        }
    })
}
