//! What follows a tool's write to a file: the project's formatter rewrites it (the model is
//! shown how, so its next `oldString` matches), then the language server's errors for the new
//! text are added to the result. A file the editor keeps unsaved is left to the editor.

use std::path::Path;

use super::file::write_text;
use crate::tool::ToolContext;
use crate::tool::ports::Formatting;

/// The most lines of a formatter's changes the model is shown; past that it is told to read.
const SHOWN_FORMAT_LINES: usize = 60;

/// The file as it stands after the formatter, and what the model should be told.
#[derive(Debug, Default)]
pub(in crate::tool) struct Settled {
    /// The file's text now (the formatter's, or what the tool wrote).
    pub text: String,
    /// Paragraphs for the result: the formatter's changes, the server's errors.
    pub notes: Vec<String>,
}

/// Formats `path`, which the tool just wrote `written` to, then gathers its errors.
pub(in crate::tool) async fn settle(ctx: &ToolContext, path: &Path, written: &str) -> Settled {
    let mut settled = Settled {
        text: written.to_owned(),
        notes: Vec::new(),
    };
    let relative = ctx.relative(path);
    // The formatter works on the disk; an editor holding the text unsaved keeps its own.
    let on_disk = tokio::fs::read_to_string(path).await.ok();
    if on_disk.as_deref() == Some(written) {
        match ctx.code.format(path, &ctx.sandbox).await {
            Formatting::Formatted { by, text } => {
                if ctx.client.can_write_files()
                    && let Err(error) = write_text(ctx, path, &text).await
                {
                    tracing::warn!(%error, "the formatted text could not reach the editor");
                }
                ctx.files.saw(path, &text);
                settled
                    .notes
                    .push(formatted_note(&by, &relative, written, &text));
                settled.text = text;
            }
            Formatting::Failed { by, why } => settled.notes.push(format!(
                "The formatter {by} failed on {relative}, so the file keeps your text as written: {why}"
            )),
            Formatting::None | Formatting::Unchanged { .. } => {}
        }
    }
    if let Some(errors) = ctx.code.check(path, &settled.text).await {
        settled.notes.push(errors);
    }
    settled
}

/// Tells the model how the formatter changed its text, as a unified diff (or, when long, to
/// read the file again).
fn formatted_note(by: &str, relative: &str, written: &str, formatted: &str) -> String {
    let diff = similar::TextDiff::from_lines(written, formatted);
    let hunks = diff
        .unified_diff()
        .context_radius(1)
        .missing_newline_hint(false)
        .to_string();
    let lines = hunks.lines().count();
    if lines > SHOWN_FORMAT_LINES {
        return format!(
            "{by} formatted {relative} after the change ({lines} diff lines). Read the file again before editing it further: later edits must match the formatted text."
        );
    }
    format!(
        "{by} formatted {relative} after the change; the file now differs from what you wrote as follows, and later edits must match the formatted text:\n```diff\n{}```",
        hunks
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formatters_changes_are_shown_as_a_diff() {
        let note = formatted_note("ruff", "a.py", "x=1\ny = 2\n", "x = 1\ny = 2\n");
        assert_eq!(
            note,
            "ruff formatted a.py after the change; the file now differs from what you wrote as follows, and later edits must match the formatted text:\n```diff\n@@ -1,2 +1,2 @@\n-x=1\n+x = 1\n y = 2\n```"
        );
        let long: String = (0..100).map(|i| format!("x{i}=1\n")).collect();
        let spaced: String = (0..100).map(|i| format!("x{i} = 1\n")).collect();
        assert!(formatted_note("ruff", "a.py", &long, &spaced).contains("Read the file again"));
    }
}
