//! Output truncation shared by the tools: at most 2,000 lines and 50 KiB reach the model,
//! head and tail kept, with the whole text saved to a file the model can read or grep.

use std::path::{Path, PathBuf};

pub const MAX_LINES: usize = 2000;
pub const MAX_BYTES: usize = 50 * 1024;

/// `text` if it fits; otherwise its head and tail around a note naming where the full text
/// is saved (`dir`, named by the call id). The cut holds even when the copy cannot be kept
/// (no `dir`, or writing fails): the note then says so.
pub fn truncate(text: &str, dir: Option<&Path>, call_id: &str) -> (String, Option<PathBuf>) {
    let lines = text.lines().count();
    if lines <= MAX_LINES && text.len() <= MAX_BYTES {
        return (text.to_owned(), None);
    }
    let saved = dir.map(|dir| {
        let path = dir.join(format!("tool_{}", sanitise(call_id)));
        std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&path, text))
            .map(|_| path)
    });
    let half_bytes = MAX_BYTES / 2;
    let half_lines = MAX_LINES / 2;
    let head = take_head(text, half_lines, half_bytes);
    let tail = take_tail(text, half_lines, half_bytes);
    let dropped_lines = lines.saturating_sub(head.lines().count() + tail.lines().count());
    let note = match &saved {
        Some(Ok(path)) => format!(
            "\n\n... {dropped_lines} lines truncated ...\nThe full output ({lines} lines, {} bytes) is saved to {}. Use grep on it, or read it with offset/limit.\n\n",
            text.len(),
            path.display()
        ),
        Some(Err(error)) => format!(
            "\n\n... {dropped_lines} lines truncated ...\nThe full output ({lines} lines, {} bytes) could not be kept ({error}): run the command again with its output narrowed (grep, head, tail) to see the rest.\n\n",
            text.len()
        ),
        None => format!(
            "\n\n... {dropped_lines} lines truncated ...\nThe full output ({lines} lines, {} bytes) could not be kept: run the command again with its output narrowed (grep, head, tail) to see the rest.\n\n",
            text.len()
        ),
    };
    (format!("{head}{note}{tail}"), saved.and_then(Result::ok))
}

fn sanitise(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn take_head(text: &str, max_lines: usize, max_bytes: usize) -> &str {
    let mut end = 0;
    for (count, line) in text.split_inclusive('\n').enumerate() {
        if count >= max_lines || end + line.len() > max_bytes {
            break;
        }
        end += line.len();
    }
    &text[..end]
}

fn take_tail(text: &str, max_lines: usize, max_bytes: usize) -> &str {
    let mut start = text.len();
    for (count, line) in text.split_inclusive('\n').rev().enumerate() {
        if count >= max_lines || text.len() - start + line.len() > max_bytes {
            break;
        }
        start -= line.len();
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_keeps_head_and_tail_and_saves_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
        let (shown, saved) = truncate(&text, Some(dir.path()), "call/1");
        let saved = saved.unwrap();
        assert_eq!(std::fs::read_to_string(&saved).unwrap(), text);
        assert!(shown.starts_with("line 1\n"));
        assert!(shown.ends_with("line 5000\n"));
        assert!(shown.contains("3000 lines truncated"), "{shown}");
        assert!(shown.contains(&saved.display().to_string()));
        let (short, none) = truncate("ok", Some(dir.path()), "c2");
        assert_eq!((short.as_str(), none), ("ok", None));
    }

    #[test]
    fn the_cut_holds_when_the_copy_cannot_be_kept() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("a-file");
        std::fs::write(&blocked, "").unwrap();
        let text: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
        for place in [Some(blocked.join("sub").as_path()), None] {
            let (shown, saved) = truncate(&text, place, "c3");
            assert_eq!(saved, None);
            assert!(shown.len() <= MAX_BYTES + 400, "{}", shown.len());
            assert!(shown.contains("could not be kept"), "{shown}");
        }
    }
}
