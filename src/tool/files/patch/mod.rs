//! The `*** Begin Patch` envelope: parsing it into file operations, leniently where models
//! are sloppy (padded markers, a heredoc around it, unified-diff hunk headers, context lines
//! without their leading space). `apply` places update hunks in a file's text.

mod apply;
mod seek;

pub use apply::apply_hunks;

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    Add {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

impl FileOp {
    /// Every path the operation reads or writes, as the patch gives them.
    pub fn paths(&self) -> Vec<&str> {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } => vec![path],
            FileOp::Update { path, move_to, .. } => std::iter::once(path.as_str())
                .chain(move_to.as_deref())
                .collect(),
        }
    }
}

/// Lines to find (context and removals) and what replaces them (context and additions).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The `@@ line` that comes before the hunk in the file: it picks between repeats.
    pub context: Option<String>,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// `*** End of File` closed it: the old lines are the file's last.
    pub end_of_file: bool,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";

pub fn parse(text: &str) -> Result<Vec<FileOp>, String> {
    let text = text.replace("\r\n", "\n");
    let lines = envelope(&text)?;
    let mut lines = lines.iter().copied().peekable();
    let mut ops = Vec::new();
    while let Some(line) = lines.next() {
        let marker = line.trim();
        if let Some(path) = marker.strip_prefix("*** Add File:") {
            let mut content = String::new();
            while let Some(next) = lines.next_if(|l| !is_marker(l)) {
                content.push_str(next.strip_prefix('+').unwrap_or(next));
                content.push('\n');
            }
            ops.push(FileOp::Add {
                path: path.trim().into(),
                content,
            });
        } else if let Some(path) = marker.strip_prefix("*** Delete File:") {
            ops.push(FileOp::Delete {
                path: path.trim().into(),
            });
        } else if let Some(path) = marker.strip_prefix("*** Update File:") {
            let move_to = lines
                .next_if(|l| l.trim().starts_with("*** Move to:"))
                .map(|l| l.trim()["*** Move to:".len()..].trim().to_owned());
            let hunks = read_hunks(&mut lines);
            if hunks.is_empty() && move_to.is_none() {
                return Err(format!(
                    "`*** Update File: {}` has no changes.",
                    path.trim()
                ));
            }
            ops.push(FileOp::Update {
                path: path.trim().into(),
                move_to,
                hunks,
            });
        } else if !marker.is_empty() {
            return Err(format!(
                "Unexpected line in the patch: `{line}`. Each file starts with `*** Add File:`, `*** Delete File:` or `*** Update File:`."
            ));
        }
    }
    if ops.is_empty() {
        return Err("The patch changes no files.".into());
    }
    Ok(ops)
}

/// The lines between `*** Begin Patch` and `*** End Patch`, the markers found with any
/// surrounding whitespace, inside a heredoc (`<<'EOF'` … `EOF`) if the model wrote one.
fn envelope(text: &str) -> Result<Vec<&str>, String> {
    let mut lines: Vec<&str> = text.trim().lines().collect();
    if let (Some(first), Some(last)) = (lines.first(), lines.last())
        && let Some(tag) = heredoc_tag(first)?
    {
        if lines.len() < 3 || last.trim() != tag {
            return Err(format!(
                "The patch opens a heredoc with `{}` but does not end with `{tag}`: nothing \
                 was changed.",
                first.trim()
            ));
        }
        lines = lines[1..lines.len() - 1].to_vec();
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    if lines.first().map(|l| l.trim()) != Some(BEGIN) {
        return Err("The patch must start with `*** Begin Patch`.".into());
    }
    let Some(end) = lines.iter().rposition(|l| l.trim() == END) else {
        return Err("The patch must end with `*** End Patch`.".into());
    };
    Ok(lines[1..end].to_vec())
}

/// `EOF` for `<<EOF`, `<<'EOF'`, `<<"EOF"` (or `apply_patch <<'EOF'`, `cat <<-EOF`…); None
/// when the line opens no heredoc, an error when its quotes do not match (`<<'EOF"`).
fn heredoc_tag(line: &str) -> Result<Option<&str>, String> {
    let Some((_, tag)) = line.trim().split_once("<<") else {
        return Ok(None);
    };
    let tag = tag.strip_prefix('-').unwrap_or(tag).trim();
    let quote = |c: char| c == '\'' || c == '"';
    let (open, close) = (tag.chars().next(), tag.chars().last());
    let quoted = open.is_some_and(quote) || close.is_some_and(quote);
    let bare = tag.trim_matches(quote);
    if bare.is_empty() || !bare.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Ok(None);
    }
    if quoted && (tag.len() < bare.len() + 2 || open != close) {
        return Err(format!(
            "The patch opens a heredoc with mismatched quotes (`<<{tag}`): nothing was changed."
        ));
    }
    Ok(Some(bare))
}

fn is_marker(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("*** ") && line != "*** End of File"
}

/// The context of a hunk header: `@@ fn main` → `fn main`; a unified diff's
/// `@@ -3,4 +3,5 @@ fn main` → `fn main`; a bare `@@` → none.
fn header_context(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("@@")?.trim();
    let rest = match rest.strip_prefix('-') {
        Some(ranges) if ranges.starts_with(|c: char| c.is_ascii_digit()) => ranges
            .split_once("@@")
            .map_or("", |(_, after)| after.trim()),
        _ => rest,
    };
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// The hunks of one `*** Update File:` section, up to the next file marker.
fn read_hunks<'a>(lines: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut hunk = Hunk::default();
    let mut started = false;
    while let Some(next) = lines.next_if(|l| !is_marker(l)) {
        let trimmed = next.trim();
        if trimmed.starts_with("@@") || trimmed == "*** End of File" {
            hunk.end_of_file = trimmed == "*** End of File";
            if started || !hunk.old.is_empty() || !hunk.new.is_empty() {
                hunks.push(std::mem::take(&mut hunk));
            }
            started = trimmed.starts_with("@@");
            hunk.context = header_context(trimmed);
            continue;
        }
        if next.is_empty() && !started && hunk.old.is_empty() && hunk.new.is_empty() {
            continue;
        }
        started = true;
        match next.chars().next() {
            Some('+') => hunk.new.push(next[1..].to_owned()),
            Some('-') => hunk.old.push(next[1..].to_owned()),
            Some(' ') => {
                hunk.old.push(next[1..].to_owned());
                hunk.new.push(next[1..].to_owned());
            }
            _ => {
                hunk.old.push(next.to_owned());
                hunk.new.push(next.to_owned());
            }
        }
    }
    if !hunk.old.is_empty() || !hunk.new.is_empty() {
        hunks.push(hunk);
    }
    hunks.retain(|h| !h.old.is_empty() || !h.new.is_empty());
    hunks
}

#[cfg(test)]
mod tests;
