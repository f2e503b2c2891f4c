//! File access for the tools, in one place: read and write through the editor when it offers
//! `fs` (it sees unsaved buffers and can review a change), else the disk. A write first creates
//! the folders it needs, whichever way it then goes, so a new nested file works everywhere.

use std::path::Path;

use crate::tool::{ToolContext, ToolError};

/// Why a file's bytes are not text a tool can work on.
fn not_text(path: &Path, binary: bool, tool: &str) -> ToolError {
    let what = if binary {
        "a binary file"
    } else {
        "not UTF-8 text"
    };
    ToolError::failed(format!(
        "{} is {what}; the {tool} tool only works on text.",
        path.display()
    ))
}

/// The file's text: the editor's buffer when it offers reading, else the file on disk, which
/// must be UTF-8 text (a NUL byte in its first 8 KiB marks it binary).
pub async fn read_text(ctx: &ToolContext, path: &Path) -> Result<String, ToolError> {
    if ctx.client.can_read_files() {
        return Ok(ctx.client.read_text_file(&ctx.session_id, path).await?);
    }
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|e| ToolError::io("read", path, e))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(not_text(path, true, &ctx.tool));
    }
    String::from_utf8(bytes).map_err(|_| not_text(path, false, &ctx.tool))
}

/// The file's current text, or `None` if it does not exist yet.
pub async fn current_text(ctx: &ToolContext, path: &Path) -> Result<Option<String>, ToolError> {
    match tokio::fs::metadata(path).await {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Ok(meta) if meta.is_dir() => Err(ToolError::failed(format!(
            "{} is a directory, not a file.",
            path.display()
        ))),
        _ => read_text(ctx, path).await.map(Some),
    }
}

/// Writes `content` to `path` exactly once: creates the missing parent folders, then writes
/// through the editor when it offers writing, else to disk.
pub async fn write_text(ctx: &ToolContext, path: &Path, content: &str) -> Result<(), ToolError> {
    if let Some(parent) = path.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(|e| ToolError::io("create", parent, e))?;
    }
    if ctx.client.can_write_files() {
        return Ok(ctx
            .client
            .write_text_file(&ctx.session_id, path, content)
            .await?);
    }
    tokio::fs::write(path, content)
        .await
        .map_err(|e| ToolError::io("write", path, e))
}

/// Removes a file from disk (the editor has no request for it).
pub async fn remove(path: &Path) -> Result<(), ToolError> {
    tokio::fs::remove_file(path)
        .await
        .map_err(|e| ToolError::io("delete", path, e))
}
