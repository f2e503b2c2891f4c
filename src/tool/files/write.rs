//! `write`: creates or replaces a whole file, after the `edit` permission with the full diff.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::file::{current_text, write_text};
use super::ledger::{self, Change};
use super::settle::settle;
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{
    FileDiff, Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput,
    describe_file, input_schema, parse_input,
};

pub struct WriteTool;

/// The `write` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WriteInput {
    /// The file to write.
    pub file_path: String,
    /// The file's complete new content.
    pub content: String,
}

impl Tool for WriteTool {
    fn name(&self) -> &'static str {
        "write"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["writefile", "createfile", "writetofile"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Write".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn permission(&self) -> &'static str {
        "edit"
    }

    fn description(&self) -> &'static str {
        "Writes a whole file, creating it (and its directories) or replacing it. Prefer `edit` for \
         changes to existing files; read a file before replacing it."
    }

    fn parameters(&self) -> Value {
        input_schema::<WriteInput>()
    }

    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        describe_file(input, cwd)
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: WriteInput = parse_input(self.name(), input)?;
            let path = ctx.path_in_reach(&input.file_path).await?;
            let relative = ctx.relative(&path);
            let _one_at_a_time = ledger::lock(&path).await;
            let old = current_text(ctx, &path).await?;
            ctx.files
                .check(&path, &relative, old.as_deref(), Change::Overwrite)?;
            let mut diff = FileDiff {
                path: path.clone(),
                old_text: old.clone(),
                new_text: input.content.clone(),
            };
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(
                    keys::EDIT,
                    ctx.rule_names(&input.file_path, &path),
                )],
                title: format!("Write {relative}"),
                locations: vec![Location::file(path.clone())],
                diffs: vec![diff.clone()],
            })
            .await?;
            ctx.started();
            write_text(ctx, &path, &input.content).await?;
            ctx.files.saw(&path, &input.content);
            let settled = settle(ctx, &path, &input.content).await;
            let verb = if old.is_some() { "Replaced" } else { "Created" };
            let mut output = format!(
                "{verb} {relative} ({} lines).",
                input.content.lines().count()
            );
            for note in &settled.notes {
                output.push_str("\n\n");
                output.push_str(note);
            }
            diff.new_text = settled.text;
            Ok(ToolOutput {
                title: relative.clone(),
                output,
                metadata: json!({"created": old.is_none()}),
                diffs: vec![diff],
                locations: vec![Location::file(path)],
                ..Default::default()
            })
        })
    }
}
