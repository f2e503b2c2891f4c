//! File access shared by the editing tools: the current text (the editor's buffer when it
//! offers one), and exactly one write, through the editor when it offers, else to disk.

use std::path::Path;

use super::{ToolContext, ToolError};

/// The file's current text, or `None` if it does not exist.
pub async fn current_text(ctx: &ToolContext, path: &Path) -> Result<Option<String>, ToolError> {
    if !path.exists() {
        return Ok(None);
    }
    if path.is_dir() {
        return Err(ToolError(format!(
            "{} is a directory, not a file.",
            path.display()
        )));
    }
    if ctx.client.can_read_files() {
        return ctx
            .client
            .read_text_file(&ctx.session_id, path)
            .await
            .map(Some)
            .map_err(|e| ToolError(e.0));
    }
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|e| ToolError(format!("Cannot read {}: {e}", path.display())))?;
    String::from_utf8(bytes).map(Some).map_err(|_| {
        ToolError(format!(
            "{} is not UTF-8 text and cannot be edited.",
            path.display()
        ))
    })
}

/// Writes `content` once: via the editor (which can review it) when it offers, else to disk.
pub async fn write_text(ctx: &ToolContext, path: &Path, content: &str) -> Result<(), ToolError> {
    ctx.client
        .write_text_file(&ctx.session_id, path, content)
        .await
        .map_err(|e| ToolError(e.0))
}
