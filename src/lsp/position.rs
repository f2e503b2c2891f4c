//! Positions between the model and a server: the model counts lines and characters from 1,
//! LSP from 0 in UTF-16 code units; and paths as the `file://` URIs servers speak.

use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path.
pub(super) fn uri(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(String::from)
        .unwrap_or_else(|_| format!("file://{}", path.display()))
}

/// The path a `file://` URI names, if it is one.
pub(super) fn path_of(uri: &str) -> Option<PathBuf> {
    url::Url::parse(uri).ok()?.to_file_path().ok()
}

/// The UTF-16 offset of the 1-based character `column` of `line`.
pub(super) fn to_utf16(line: &str, column: u32) -> u32 {
    line.chars()
        .take(column.saturating_sub(1) as usize)
        .map(|c| c.len_utf16() as u32)
        .sum()
}

/// The 1-based character column of UTF-16 offset `units` in `line`.
pub(super) fn from_utf16(line: &str, units: u32) -> u32 {
    let mut seen = 0;
    let mut column = 1;
    for c in line.chars() {
        if seen >= units {
            break;
        }
        seen += c.len_utf16() as u32;
        column += 1;
    }
    column
}

/// Line `n` (0-based) of `text`, without its ending.
pub(super) fn line_of(text: &str, n: u32) -> &str {
    text.lines().nth(n as usize).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_for_the_model_and_utf16_for_the_server() {
        let line = "é😀x = 1";
        assert_eq!(to_utf16(line, 3), 3, "é is one unit, the emoji two");
        assert_eq!(from_utf16(line, 3), 3);
        assert_eq!(to_utf16(line, 1), 0);
        assert_eq!(from_utf16(line, 0), 1);
    }

    #[test]
    fn uris_round_trip_with_spaces() {
        let path = Path::new("/tmp/a dir/ü.py");
        assert_eq!(uri(path), "file:///tmp/a%20dir/%C3%BC.py");
        assert_eq!(path_of(&uri(path)).as_deref(), Some(path));
    }
}
