//! `edit`: replaces `oldString` with `newString` in a file, tolerant of whitespace and
//! indentation slips, keeping the file's line endings and BOM, after the `edit` permission.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::endings::Normalized;
use super::file::{current_text, write_text};
use super::ledger::{self, Change};
use super::matching::{self, Found, MatchError, Strategy};
use super::settle::settle;
use crate::message::Location;
use crate::permission::keys;
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

    fn aliases(&self) -> &'static [&'static str] {
        &[
            "strreplacebasededittool",
            "strreplaceeditor",
            "strreplace",
            "editfile",
            "replace",
            "replaceinfile",
            "searchreplace",
        ]
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
        "Replaces `oldString` with `newString` in a file. Read the file first and copy \
         `oldString` exactly, with enough surrounding lines to make it unique; set `replaceAll` \
         to change every occurrence. When `oldString` is not found as written, whitespace, \
         indentation and escaping differences are forgiven if the match is unique, and the \
         result shows the lines replaced. An empty `oldString` creates a file that does not \
         exist yet (or is empty)."
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
            let _one_at_a_time = ledger::lock(&path).await;
            let old = current_text(ctx, &path).await?;
            ctx.files
                .check(&path, &relative, old.as_deref(), Change::Edit)?;
            let planned = plan(old.as_deref(), &input, &relative)?;
            let mut diff = FileDiff {
                path: path.clone(),
                old_text: old.clone(),
                new_text: planned.text.clone(),
            };
            let location = Location {
                path: path.clone(),
                line: Some(planned.line),
            };
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(
                    keys::EDIT,
                    ctx.rule_names(&input.file_path, &path),
                )],
                title: format!("Edit {relative}"),
                locations: vec![location.clone()],
                diffs: vec![diff.clone()],
            })
            .await?;
            ctx.started();
            write_text(ctx, &path, &planned.text).await?;
            ctx.files.saw(&path, &planned.text);
            let settled = settle(ctx, &path, &planned.text).await;
            let mut output = String::from("Edit applied successfully.");
            for note in planned.note.iter().chain(&settled.notes) {
                output.push_str("\n\n");
                output.push_str(note);
            }
            diff.new_text = settled.text;
            Ok(ToolOutput {
                title: relative,
                output,
                metadata: json!({"line": planned.line}),
                diffs: vec![diff],
                locations: vec![location],
                ..Default::default()
            })
        })
    }
}

/// The file's text after the edit, its first changed line, and what to tell the model when
/// `oldString` was not found as written.
#[derive(Debug)]
struct Planned {
    text: String,
    line: u32,
    note: Option<String>,
}

fn plan(old: Option<&str>, input: &EditInput, relative: &str) -> Result<Planned, ToolError> {
    let created = |text: String| Planned {
        text,
        line: 1,
        note: None,
    };
    match old {
        None if input.old_string.is_empty() => Ok(created(input.new_string.clone())),
        None => Err(ToolError::failed(format!(
            "File not found: {relative}. To create it, call edit with an empty oldString or use write."
        ))),
        Some(text) if input.old_string.is_empty() => {
            if !text.trim_start_matches('\u{feff}').is_empty() {
                return Err(ToolError::failed(format!(
                    "{relative} already exists and is not empty, so an empty oldString cannot create it. To change part of it, pass the text to replace as oldString; to replace all of it, read it and use write."
                )));
            }
            let bom = if text.starts_with('\u{feff}') {
                "\u{feff}"
            } else {
                ""
            };
            Ok(created(format!("{bom}{}", input.new_string)))
        }
        Some(text) => replace(text, input, relative),
    }
}

/// `oldString` replaced in `text`, which keeps its BOM and each line's ending.
fn replace(text: &str, input: &EditInput, relative: &str) -> Result<Planned, ToolError> {
    let file = Normalized::new(text);
    let old = input.old_string.replace("\r\n", "\n");
    let new = input.new_string.replace("\r\n", "\n");
    let found = matching::find(&file.body, &old, &new, input.replace_all).map_err(|e| match e {
        MatchError::NotFound => ToolError::failed(format!(
            "Could not find oldString in {relative}. It must match the file's text, including whitespace and indentation. Read the file again and copy the exact lines."
        )),
        MatchError::Several(n) => ToolError::failed(format!(
            "Found {n} matches for oldString in {relative}. Include more surrounding lines to make it unique, or set replaceAll to change every one."
        )),
        MatchError::Disproportionate => ToolError::failed(format!(
            "Refusing the edit of {relative}: the closest match spans much more of the file than oldString, and would replace lines you did not write. Nothing was changed. Read the file again and give the full exact oldString for the lines you mean."
        )),
        MatchError::TooCostly => ToolError::failed(format!(
            "Refusing the edit of {relative}: oldString is not in the file as written, and searching for it tolerantly would take too long. Nothing was changed. Copy the exact lines from the file, or edit a smaller piece."
        )),
    })?;
    let first = &found.replacements[0];
    let line = file.body[..first.range.start].matches('\n').count() as u32 + 1;
    let note = (found.strategy != Strategy::Exact).then(|| changed_lines(&file.body, &found, line));
    Ok(Planned {
        text: file.rebuild(text, &found.replacements),
        line,
        note,
    })
}

/// How `oldString` was found and the replaced lines as they now read, with three lines of
/// context either side, numbered as `read` numbers them.
fn changed_lines(body: &str, found: &Found, line: u32) -> String {
    let first = &found.replacements[0];
    let old_lines = body[first.range.clone()].matches('\n').count() as u32;
    let new_lines = first.text.matches('\n').count() as u32;
    let mut edited = String::with_capacity(body.len() + first.text.len());
    edited.push_str(&body[..first.range.start]);
    edited.push_str(&first.text);
    edited.push_str(&body[first.range.end..]);
    let from = line.saturating_sub(3).max(1);
    let to = line + new_lines + 3;
    let shown: Vec<String> = edited
        .lines()
        .enumerate()
        .map(|(i, l)| (i as u32 + 1, l))
        .filter(|(n, _)| (from..=to).contains(n))
        .map(|(n, l)| format!("{n}: {l}"))
        .collect();
    let more = if found.replacements.len() > 1 {
        format!(" (and {} more places)", found.replacements.len() - 1)
    } else {
        String::new()
    };
    let reindent = found
        .reindent
        .as_ref()
        .map(|how| format!(" {}", how.describe()))
        .unwrap_or_default();
    format!(
        "oldString was not in the file as written; it was found {} at lines {}-{}{more}.{reindent} Those lines now read:\n{}",
        found.strategy.describe(),
        line,
        line + old_lines,
        shown.join("\n")
    )
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
        let planned = replace("\u{feff}a\r\nb\r\nc\r\n", &input("b\nc", "B\nC"), "f").unwrap();
        assert_eq!(planned.text, "\u{feff}a\r\nB\r\nC\r\n");
        assert_eq!(planned.line, 2);
        assert_eq!(planned.note, None);
    }

    #[test]
    fn an_empty_old_string_only_creates() {
        let i = input("", "new\n");
        assert_eq!(plan(None, &i, "f").unwrap().text, "new\n");
        assert_eq!(
            plan(Some("\u{feff}"), &i, "f").unwrap().text,
            "\u{feff}new\n"
        );
        let refused = plan(Some("\u{feff}using System;\n"), &i, "f.cs").unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("f.cs already exists and is not empty")
        );
    }

    #[test]
    fn a_tolerant_match_shows_the_lines_it_replaced() {
        let text = "one\ntwo\n    three  \nfour\nfive\nsix\nseven\n";
        let planned = replace(text, &input("three", "THREE"), "f").unwrap();
        assert_eq!(
            planned.text,
            "one\ntwo\n    THREE  \nfour\nfive\nsix\nseven\n"
        );
        assert_eq!(planned.note, None, "found exactly inside the line");
        let planned = replace(text, &input("  three\nfour", "3\n4"), "f").unwrap();
        assert_eq!(planned.text, "one\ntwo\n3\n4\nfive\nsix\nseven\n");
        assert_eq!(
            planned.note.unwrap(),
            "oldString was not in the file as written; it was found ignoring each line's surrounding whitespace at lines 3-4. newString was written as given: the file's lines are not indented by one even amount more or less than oldString's, so it was not moved. Check its indentation. Those lines now read:\n1: one\n2: two\n3: 3\n4: 4\n5: five\n6: six\n7: seven"
        );
    }
}
