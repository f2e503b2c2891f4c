//! `edit`: replaces `oldString` with `newString` in a file, tolerant of whitespace and
//! indentation slips, keeping the file's line endings and BOM, after the `edit` permission.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::edit_match;
use super::edit_match::MatchError;
use super::file::{current_text, write_text};
use crate::message::Location;
use crate::tool::{
    FileDiff, Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput,
    describe_file, input_schema, parse_input,
};

pub struct EditTool;

/// The `edit` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditInput {
    /// The file to edit.
    pub file_path: String,
    /// The text to replace.
    pub old_string: String,
    /// The text to put in its place.
    pub new_string: String,
    /// Replace every occurrence (default false).
    #[serde(default)]
    pub replace_all: bool,
}

impl Tool for EditTool {
    fn name(&self) -> &'static str {
        "edit"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn permission(&self) -> &'static str {
        "edit"
    }

    fn description(&self) -> &'static str {
        "Replaces `oldString` with `newString` in a file. Read the file first and copy \
         `oldString` exactly, with enough surrounding lines to make it unique; set `replaceAll` \
         to change every occurrence. An empty `oldString` creates the file (or replaces all of it)."
    }

    fn parameters(&self) -> Value {
        input_schema::<EditInput>()
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
            let input: EditInput = parse_input(self.name(), input)?;
            if input.old_string == input.new_string {
                return Err(ToolError::failed(
                    "oldString and newString are identical; there is nothing to change.",
                ));
            }
            let path = ctx.path_in_reach(&input.file_path).await?;
            let relative = ctx.relative(&path);
            let old = current_text(ctx, &path).await?;
            let (new_text, line) = match &old {
                None if input.old_string.is_empty() => (input.new_string.clone(), 1),
                None => {
                    return Err(ToolError::failed(format!(
                        "File not found: {}. To create it, call edit with an empty oldString or use write.",
                        path.display()
                    )));
                }
                Some(_) if input.old_string.is_empty() => (input.new_string.clone(), 1),
                Some(text) => replace(text, &input, &relative)?,
            };
            let diff = FileDiff {
                path: path.clone(),
                old_text: old.clone(),
                new_text: new_text.clone(),
            };
            let location = Location {
                path: path.clone(),
                line: Some(line),
            };
            ctx.ask(PermissionCheck {
                needs: vec![Need::new("edit", ctx.rule_names(&input.file_path, &path))],
                title: format!("Edit {relative}"),
                locations: vec![location.clone()],
                diffs: vec![diff.clone()],
            })
            .await?;
            ctx.started();
            write_text(ctx, &path, &new_text).await?;
            Ok(ToolOutput {
                title: relative,
                output: "Edit applied successfully.".into(),
                metadata: json!({"line": line}),
                diffs: vec![diff],
                locations: vec![location],
                ..Default::default()
            })
        })
    }
}

/// The edited text (line endings and BOM as the file had them) and the first changed line.
fn replace(text: &str, input: &EditInput, relative: &str) -> Result<(String, u32), ToolError> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let crlf = body.contains("\r\n");
    let body = if crlf {
        body.replace("\r\n", "\n")
    } else {
        body.to_owned()
    };
    let old = input.old_string.replace("\r\n", "\n");
    let new = input.new_string.replace("\r\n", "\n");
    let replacements = edit_match::find(&body, &old, &new, input.replace_all).map_err(|e| match e {
        MatchError::NotFound => ToolError::failed(format!(
            "Could not find oldString in {relative}. It must match the file's text, including whitespace and indentation. Read the file again and copy the exact lines."
        )),
        MatchError::Several(n) => ToolError::failed(format!(
            "Found {n} matches for oldString in {relative}. Include more surrounding lines to make it unique, or set replaceAll to change every one."
        )),
    })?;
    let line = body[..replacements[0].range.start].matches('\n').count() as u32 + 1;
    let edited = edit_match::apply(&body, &replacements);
    let edited = if crlf {
        edited.replace('\n', "\r\n")
    } else {
        edited
    };
    Ok((format!("{bom}{edited}"), line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(old: &str, new: &str) -> EditInput {
        EditInput {
            file_path: "f".into(),
            old_string: old.into(),
            new_string: new.into(),
            replace_all: false,
        }
    }

    #[test]
    fn crlf_and_bom_are_kept() {
        let (text, line) = replace("\u{feff}a\r\nb\r\nc\r\n", &input("b\nc", "B\nC"), "f").unwrap();
        assert_eq!(text, "\u{feff}a\r\nB\r\nC\r\n");
        assert_eq!(line, 2);
    }
}
