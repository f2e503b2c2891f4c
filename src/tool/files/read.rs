//! `read`: a file's lines, numbered, from `offset` for `limit` lines (capped in width and
//! bytes); a directory's entries; a clear refusal for binary files and close names for typos.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::file::read_text;
use crate::message::Location;
use crate::permission::keys;
use crate::tool::{
    PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, describe_file,
    input_schema, parse_input,
};

const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
const MAX_BYTES: usize = 50 * 1024;
const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

pub struct ReadTool;

/// The `read` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadInput {
    /// The file to read.
    pub file_path: String,
    /// The first line to read (1-based).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub offset: Option<usize>,
    /// How many lines to read (default 2000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

impl Tool for ReadTool {
    fn name(&self) -> &'static str {
        "read"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["readfile", "view", "viewfile", "openfile", "cat"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Read".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &'static str {
        "Reads a file from the project. `filePath` is absolute or relative to the project. Lines \
         come numbered (`N: text`); by default up to 2000 lines from the start. Use `offset` \
         (1-based line) and `limit` to read long files in parts. Reading a directory lists its \
         entries. Read a file before editing it."
    }

    fn parameters(&self) -> Value {
        input_schema::<ReadInput>()
    }

    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        let (title, mut locations) = describe_file(input, cwd);
        if let (Some(line), Some(loc)) = (
            input.get("offset").and_then(Value::as_u64),
            locations.first_mut(),
        ) {
            loc.line = Some(line as u32);
        }
        (title, locations)
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: ReadInput = parse_input(self.name(), input)?;
            let path = ctx.path_in_reach(&input.file_path).await?;
            let relative = ctx.relative(&path);
            ctx.ask(
                PermissionCheck::new(
                    keys::READ,
                    ctx.rule_names(&input.file_path, &path),
                    format!("Read {relative}"),
                )
                .at(Location::file(path.clone())),
            )
            .await?;
            ctx.started();
            let offset = input.offset.unwrap_or(1).max(1);
            let limit = input.limit.unwrap_or(DEFAULT_LIMIT).max(1);
            let metadata = tokio::fs::metadata(&path).await;
            match metadata {
                Err(_) if !ctx.client.can_read_files() => Err(missing(&path)),
                Ok(meta) if meta.is_dir() => read_dir(&path, &relative, offset, limit).await,
                Ok(_) if image_mime(&path).is_some() => read_image(&path, &relative).await,
                _ => {
                    let text = read_text(ctx, &path).await?;
                    ctx.files.saw(&path, &text);
                    ctx.code.opened(&path, &text);
                    let output = number_lines(&path, &text, offset, limit);
                    Ok(ToolOutput {
                        title: relative,
                        output,
                        metadata: json!({"lines": text.lines().count()}),
                        locations: vec![Location {
                            path,
                            line: Some(offset as u32),
                        }],
                        ..Default::default()
                    })
                }
            }
        })
    }
}

/// The MIME type of an image the model can be shown, by extension.
fn image_mime(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}

/// An image, attached for the model to see.
async fn read_image(path: &Path, relative: &str) -> Result<ToolOutput, ToolError> {
    use base64::Engine as _;
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|e| ToolError::io("read", path, e))?;
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ToolError::failed(format!(
            "{} is larger than 5 MB; images that large are not attached.",
            path.display()
        )));
    }
    let mime = image_mime(path).unwrap_or("application/octet-stream");
    Ok(ToolOutput {
        title: relative.to_owned(),
        output: format!(
            "Image read successfully ({mime}, {} bytes); it is attached.",
            bytes.len()
        ),
        metadata: json!({"bytes": bytes.len()}),
        locations: vec![Location::file(path)],
        attachments: vec![crate::tool::Attachment {
            mime: mime.to_owned(),
            data: base64::engine::general_purpose::STANDARD.encode(&bytes),
        }],
        ..Default::default()
    })
}

fn missing(path: &Path) -> ToolError {
    let mut message = format!("File not found: {}", path.display());
    if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
        let names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let name = name.to_string_lossy().into_owned();
        let close = similar::get_close_matches(
            name.as_str(),
            &names.iter().map(String::as_str).collect::<Vec<_>>(),
            3,
            0.6,
        );
        if !close.is_empty() {
            let list: Vec<String> = close
                .iter()
                .map(|n| dir.join(n).display().to_string())
                .collect();
            message.push_str(&format!(
                "\nDid you mean one of these?\n{}",
                list.join("\n")
            ));
        }
    }
    ToolError::failed(message)
}

fn number_lines(path: &Path, text: &str, offset: usize, limit: usize) -> String {
    let total = text.lines().count();
    let mut out = format!(
        "<path>{}</path>\n<type>file</type>\n<content>\n",
        path.display()
    );
    let mut shown_to = offset.saturating_sub(1);
    let mut capped = false;
    for (index, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
        let line = match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => format!(
                "{}... (line truncated to {MAX_LINE_CHARS} chars)",
                &line[..cut]
            ),
            None => line.to_owned(),
        };
        let numbered = format!("{}: {line}\n", index + 1);
        if out.len() + numbered.len() > MAX_BYTES {
            capped = true;
            break;
        }
        out.push_str(&numbered);
        shown_to = index + 1;
    }
    if capped {
        out.push_str(&format!(
            "\n(Output capped at 50 KB. Showing lines {offset}-{shown_to} of {total}. Use offset={} to continue.)\n",
            shown_to + 1
        ));
    } else if shown_to < total {
        out.push_str(&format!(
            "\n(Showing lines {offset}-{shown_to} of {total}. Use offset={} to continue.)\n",
            shown_to + 1
        ));
    } else {
        out.push_str(&format!("\n(End of file - total {total} lines)\n"));
    }
    out.push_str("</content>");
    out
}

async fn read_dir(
    path: &Path,
    relative: &str,
    offset: usize,
    limit: usize,
) -> Result<ToolOutput, ToolError> {
    let mut reader = tokio::fs::read_dir(path)
        .await
        .map_err(|e| ToolError::io("list", path, e))?;
    let mut entries = Vec::new();
    while let Some(entry) = reader
        .next_entry()
        .await
        .map_err(|e| ToolError::io("list", path, e))?
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.file_type().await.map(|t| t.is_dir()).unwrap_or(false);
        entries.push(if is_dir { format!("{name}/") } else { name });
    }
    entries.sort();
    let total = entries.len();
    let shown: Vec<String> = entries.into_iter().skip(offset - 1).take(limit).collect();
    let mut output = format!(
        "<path>{}</path>\n<type>directory</type>\n<entries>\n{}\n",
        path.display(),
        shown.join("\n")
    );
    if offset - 1 + shown.len() < total {
        output.push_str(&format!(
            "(Showing {} of {total} entries. Use offset={} to continue.)\n",
            shown.len(),
            offset + shown.len()
        ));
    }
    output.push_str("</entries>");
    Ok(ToolOutput {
        title: relative.to_owned(),
        output,
        metadata: json!({"entries": total}),
        locations: vec![Location::file(path)],
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_windowed_and_cut() {
        let text = format!("a\nb\nc\n{}\n", "x".repeat(2500));
        let out = number_lines(Path::new("/p/f"), &text, 2, 2);
        assert!(out.contains("2: b\n3: c\n"), "{out}");
        assert!(
            out.contains("(Showing lines 2-3 of 4. Use offset=4 to continue.)"),
            "{out}"
        );
        let out = number_lines(Path::new("/p/f"), &text, 4, 10);
        assert!(out.contains("... (line truncated to 2000 chars)"));
        assert!(out.contains("(End of file - total 4 lines)"));
    }
}
