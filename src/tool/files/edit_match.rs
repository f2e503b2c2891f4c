//! Finding `oldString` in a file for `edit`: exact first, then tolerant matchers (shifted
//! indentation, trimmed lines, collapsed whitespace, escaped text, trimmed ends). Pure text.

use std::ops::Range;

/// Why a search failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    NotFound,
    Several(usize),
}

/// Where to replace, and with what (tolerant matchers may re-indent the replacement).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub range: Range<usize>,
    pub text: String,
}

/// The replacements of `old` by `new` in `content` (both with `\n` line ends).
pub fn find(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Vec<Replacement>, MatchError> {
    let strategies: [&dyn Fn() -> Vec<Replacement>; 6] = [
        &|| exact(content, old, new),
        &|| indentation(content, old, new),
        &|| lines(content, old, new, |l| l.trim().to_owned()),
        &|| {
            lines(content, old, new, |l| {
                l.split_whitespace().collect::<Vec<_>>().join(" ")
            })
        },
        &|| escaped(content, old, new),
        &|| exact(content, old.trim(), new.trim()),
    ];
    for strategy in strategies {
        let found = strategy();
        match found.len() {
            0 => continue,
            1 => return Ok(found),
            _ if replace_all => return Ok(found),
            n => return Err(MatchError::Several(n)),
        }
    }
    Err(MatchError::NotFound)
}

/// Applies replacements (sorted, non-overlapping) to `content`.
pub fn apply(content: &str, replacements: &[Replacement]) -> String {
    let mut out = String::with_capacity(content.len());
    let mut at = 0;
    for r in replacements {
        out.push_str(&content[at..r.range.start]);
        out.push_str(&r.text);
        at = r.range.end;
    }
    out.push_str(&content[at..]);
    out
}

fn exact(content: &str, old: &str, new: &str) -> Vec<Replacement> {
    if old.is_empty() {
        return Vec::new();
    }
    content
        .match_indices(old)
        .map(|(start, _)| Replacement {
            range: start..start + old.len(),
            text: new.to_owned(),
        })
        .collect()
}

/// Byte ranges of the lines of `content`, without their `\n`.
fn line_spans(content: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = 0;
    for line in content.split_inclusive('\n') {
        let end = start + line.trim_end_matches('\n').len();
        spans.push(start..end);
        start += line.len();
    }
    spans
}

fn old_lines(old: &str) -> Vec<&str> {
    old.trim_end_matches('\n').split('\n').collect()
}

/// Windows of lines equal to `old`'s lines under `normalise`.
fn lines(
    content: &str,
    old: &str,
    new: &str,
    normalise: impl Fn(&str) -> String,
) -> Vec<Replacement> {
    let wanted: Vec<String> = old_lines(old).iter().map(|l| normalise(l)).collect();
    if wanted.iter().all(String::is_empty) {
        return Vec::new();
    }
    let spans = line_spans(content);
    let mut found = Vec::new();
    let mut i = 0;
    while i + wanted.len() <= spans.len() {
        let window = &spans[i..i + wanted.len()];
        if window
            .iter()
            .zip(&wanted)
            .all(|(span, w)| normalise(&content[span.clone()]) == *w)
        {
            found.push(Replacement {
                range: window[0].start..window[window.len() - 1].end,
                text: new.trim_end_matches('\n').to_owned(),
            });
            i += wanted.len();
        } else {
            i += 1;
        }
    }
    found
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn min_indent<'a>(lines: impl Iterator<Item = &'a str>) -> usize {
    lines
        .filter(|l| !l.trim().is_empty())
        .map(indent_of)
        .min()
        .unwrap_or(0)
}

/// The same block at another indentation; the replacement is shifted alike.
fn indentation(content: &str, old: &str, new: &str) -> Vec<Replacement> {
    let wanted = old_lines(old);
    let old_indent = min_indent(wanted.iter().copied());
    let strip = |l: &str, n: usize| {
        if l.trim().is_empty() {
            String::new()
        } else {
            l[n.min(indent_of(l))..].to_owned()
        }
    };
    let wanted_stripped: Vec<String> = wanted.iter().map(|l| strip(l, old_indent)).collect();
    let spans = line_spans(content);
    let mut found = Vec::new();
    let mut i = 0;
    while i + wanted.len() <= spans.len() {
        let window: Vec<&str> = spans[i..i + wanted.len()]
            .iter()
            .map(|s| &content[s.clone()])
            .collect();
        let indent = min_indent(window.iter().copied());
        if window
            .iter()
            .zip(&wanted_stripped)
            .all(|(l, w)| strip(l, indent) == *w)
        {
            let prefix = &window
                .iter()
                .find(|l| !l.trim().is_empty())
                .map(|l| &l[..indent])
                .unwrap_or("");
            let text: Vec<String> = new
                .trim_end_matches('\n')
                .split('\n')
                .map(|l| {
                    if l.trim().is_empty() {
                        String::new()
                    } else {
                        format!("{prefix}{}", strip(l, old_indent))
                    }
                })
                .collect();
            found.push(Replacement {
                range: spans[i].start..spans[i + wanted.len() - 1].end,
                text: text.join("\n"),
            });
            i += wanted.len();
        } else {
            i += 1;
        }
    }
    found
}

/// `oldString` written with literal escapes (`\n`, `\t`, `\"`) by the model.
fn escaped(content: &str, old: &str, new: &str) -> Vec<Replacement> {
    if !old.contains('\\') {
        return Vec::new();
    }
    let unescape = |s: &str| {
        s.replace("\\n", "\n")
            .replace("\\t", "\t")
            .replace("\\\"", "\"")
            .replace("\\'", "'")
            .replace("\\\\", "\\")
    };
    exact(content, &unescape(old), &unescape(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(content: &str, old: &str, new: &str) -> Result<String, MatchError> {
        find(content, old, new, false).map(|r| apply(content, &r))
    }

    #[test]
    fn exact_then_tolerant() {
        assert_eq!(edit("a\nb\nc\n", "b", "B").unwrap(), "a\nB\nc\n");
        // Trailing spaces in the file, none in oldString.
        assert_eq!(
            edit(
                "fn x() {  \n    y();\n}\n",
                "fn x() {\n    y();",
                "fn z() {\n    y();"
            )
            .unwrap(),
            "fn z() {\n    y();\n}\n"
        );
        // Collapsed whitespace.
        assert_eq!(
            edit("let  a =   1;\n", "let a = 1;", "let a = 2;").unwrap(),
            "let a = 2;\n"
        );
        // Escaped newlines.
        assert_eq!(edit("x\ny\n", "x\\ny", "z").unwrap(), "z\n");
    }

    #[test]
    fn shifted_indentation_reindents_the_replacement() {
        let content = "mod m {\n        if a {\n            b();\n        }\n}\n";
        let result = edit(content, "if a {\n    b();\n}", "if a {\n    c();\n}").unwrap();
        assert_eq!(
            result,
            "mod m {\n        if a {\n            c();\n        }\n}\n"
        );
    }

    #[test]
    fn several_matches_and_not_found() {
        assert_eq!(edit("x x", "x", "y"), Err(MatchError::Several(2)));
        assert_eq!(
            find("x x", "x", "y", true)
                .map(|r| apply("x x", &r))
                .unwrap(),
            "y y"
        );
        assert_eq!(edit("abc", "zzz", "y"), Err(MatchError::NotFound));
    }
}
