//! Where a hunk's lines are in a file: exact, then ignoring trailing whitespace, then
//! surrounding whitespace, then with typographic punctuation read as ASCII; never looser.

/// The ways a line may differ from the patch's, strictest first.
const LEVELS: [fn(&str) -> String; 4] = [
    |l| l.to_owned(),
    |l| l.trim_end().to_owned(),
    |l| l.trim().to_owned(),
    |l| l.trim().chars().map(ascii_punctuation).collect(),
];

/// Dashes, quotes and odd spaces as the ASCII a model types for them.
fn ascii_punctuation(c: char) -> char {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}'..='\u{201B}' => '\'',
        '\u{201C}'..='\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// The first index at or after `from` where `wanted` is in `lines`, trying each level in
/// turn; with `at_end`, the file's last lines are tried first. If it is nowhere after
/// `from`, the lines before it are searched too (hunks the model wrote out of order).
pub fn seek(lines: &[String], wanted: &[String], from: usize, at_end: bool) -> Option<usize> {
    if wanted.is_empty() {
        return Some(from.min(lines.len()));
    }
    let last = lines.len().checked_sub(wanted.len())?;
    for level in LEVELS {
        let wanted: Vec<String> = wanted.iter().map(|w| level(w)).collect();
        let fits = |start: usize| {
            wanted
                .iter()
                .enumerate()
                .all(|(k, w)| level(&lines[start + k]) == *w)
        };
        if at_end && fits(last) {
            return Some(last);
        }
        if let Some(at) = (from.min(last + 1)..=last).find(|&s| fits(s)) {
            return Some(at);
        }
    }
    if from > 0 {
        return seek(lines, wanted, 0, at_end).filter(|&at| at < from);
    }
    None
}

/// The window of `lines` most like `wanted` (most lines equal once trimmed), for an error.
pub fn nearest(lines: &[String], wanted: &[String]) -> Option<usize> {
    let wanted: Vec<&str> = wanted.iter().map(|w| w.trim()).collect();
    let size = wanted.len().min(lines.len());
    (0..=lines.len() - size)
        .map(|start| {
            let same = (0..size)
                .filter(|&k| !wanted[k].is_empty() && lines[start + k].trim() == wanted[k])
                .count();
            (same, start)
        })
        .filter(|(same, _)| *same > 0)
        .max_by_key(|(same, start)| (*same, std::cmp::Reverse(*start)))
        .map(|(_, start)| start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn strict_to_loose_but_no_looser() {
        let lines = v(&["foo   ", "  bar\t", "x \u{2014} \u{201C}y\u{201D}"]);
        assert_eq!(seek(&lines, &v(&["foo", "  bar"]), 0, false), Some(0));
        assert_eq!(seek(&lines, &v(&["bar"]), 0, false), Some(1));
        assert_eq!(seek(&lines, &v(&["x - \"y\""]), 0, false), Some(2));
        assert_eq!(seek(&lines, &v(&["x-\"y\""]), 0, false), None);
        assert_eq!(seek(&lines, &v(&["a", "b", "c", "d"]), 0, false), None);
    }

    #[test]
    fn forward_first_then_behind_and_the_end_first_for_end_of_file() {
        let lines = v(&["a", "b", "a", "b"]);
        assert_eq!(seek(&lines, &v(&["a"]), 1, false), Some(2));
        assert_eq!(seek(&lines, &v(&["a", "b"]), 0, true), Some(2));
        assert_eq!(seek(&v(&["x", "y", "z"]), &v(&["x"]), 2, false), Some(0));
    }

    #[test]
    fn the_nearest_window_for_an_error() {
        let lines = v(&["fn a() {", "    one();", "}", "fn b() {", "    two();", "}"]);
        assert_eq!(
            nearest(&lines, &v(&["fn b() {", "    three();", "}"])),
            Some(3)
        );
        assert_eq!(nearest(&lines, &v(&["nothing"])), None);
    }
}
