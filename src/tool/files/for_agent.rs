//! Another agent's file requests (ACP `fs/read_text_file` and `fs/write_text_file` from an
//! external subagent), held to exactly the checks of Tandem's own `read` and `write`: the real
//! path through symlinks, `external_directory` outside the project, the read and edit rules.

use serde_json::json;

use super::file::{current_text, read_text};
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{PermissionCheck, Tool, ToolContext, ToolError, ToolOutput};

/// The file's text (from 1-based `line`, at most `limit` lines), after `read`'s checks.
pub async fn read(
    ctx: &ToolContext,
    path: &str,
    line: Option<u32>,
    limit: Option<u32>,
) -> Result<String, ToolError> {
    let real = ctx.path_in_reach(path).await?;
    let relative = ctx.relative(&real);
    ctx.ask(
        PermissionCheck::new(
            keys::READ,
            ctx.rule_names(path, &real),
            format!("Read {relative}"),
        )
        .at(Location::file(real.clone())),
    )
    .await?;
    let text = read_text(ctx, &real).await?;
    ctx.files.saw(&real, &text);
    if line.is_none() && limit.is_none() {
        return Ok(text);
    }
    let skip = line.unwrap_or(1).max(1) as usize - 1;
    let take = limit.map_or(usize::MAX, |l| l as usize);
    Ok(text.split_inclusive('\n').skip(skip).take(take).collect())
}

/// Writes the whole file as `write` does (the edit rules, with the diff; the editor's buffer
/// when it offers writing). What the other agent knows of the file is its own business, so
/// `write`'s read-before-overwrite rule, which guards Tandem's model, is not applied.
pub async fn write(
    ctx: &ToolContext,
    path: &str,
    content: String,
) -> Result<ToolOutput, ToolError> {
    if let Ok(real) = crate::tool::reach::real_path(&ctx.resolve(path))
        && let Ok(Some(current)) = current_text(ctx, &real).await
    {
        ctx.files.saw(&real, &current);
    }
    super::write::WriteTool
        .run(json!({"filePath": path, "content": content}), ctx)
        .await
}
