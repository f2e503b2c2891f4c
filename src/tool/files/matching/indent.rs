//! Fitting `newString` to the file's indentation when the model wrote `oldString` and
//! `newString` at another one. Only an even shift is made: every matched line must sit the same
//! whitespace deeper (or shallower) than the line of `oldString` it stands for; a block whose
//! lines differ by uneven amounts keeps `newString` as the model wrote it. (OpenCode writes
//! `newString` as given; this keeps a nested block's lines where the file has them.)

/// What was done to `newString`'s indentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reindent {
    /// Each line was indented further by this whitespace.
    Deeper(String),
    /// This whitespace was taken off the front of each line.
    Shallower(String),
    /// Kept as written: the found lines are not one even shift from `oldString`'s.
    Kept,
}

impl Reindent {
    /// In words, for the result the model reads.
    pub fn describe(&self) -> String {
        match self {
            Reindent::Deeper(by) => format!(
                "newString was indented by {} more on each line, as the file's lines are.",
                measure(by)
            ),
            Reindent::Shallower(by) => format!(
                "newString was indented by {} less on each line, as the file's lines are.",
                measure(by)
            ),
            Reindent::Kept => "newString was written as given: the file's lines are not indented by one even amount more or less than oldString's, so it was not moved. Check its indentation."
                .into(),
        }
    }
}

/// `by` in words: "4 spaces", "1 tab", "1 tab and 2 spaces".
fn measure(by: &str) -> String {
    let count = |c: char, one: &str, many: &str| {
        let n = by.chars().filter(|&x| x == c).count();
        (n > 0).then(|| format!("{n} {}", if n == 1 { one } else { many }))
    };
    let parts: Vec<String> = [count('\t', "tab", "tabs"), count(' ', "space", "spaces")]
        .into_iter()
        .flatten()
        .collect();
    parts.join(" and ")
}

fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

fn non_blank(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').filter(|l| !l.trim().is_empty())
}

/// The smallest indentation, in characters, of the text's non-blank lines.
fn min_indent(text: &str) -> usize {
    non_blank(text).map(|l| leading(l).len()).min().unwrap_or(0)
}

/// The one shift that takes each line of `old` to the file line found for it.
fn shift(found: &str, old: &str) -> Option<Reindent> {
    let pairs: Vec<(&str, &str)> = non_blank(found)
        .map(leading)
        .zip(non_blank(old).map(leading))
        .collect();
    if pairs.len() != non_blank(found).count() || pairs.len() != non_blank(old).count() {
        return None;
    }
    if pairs.iter().all(|(f, o)| f == o) {
        return None;
    }
    // The whitespace that, put before each shorter indentation, gives the longer one, if it
    // is one and the same for every pair.
    let even = |deeper_in_file: bool| -> Option<String> {
        let mut by: Option<&str> = None;
        for &(f, o) in &pairs {
            let (long, short) = if deeper_in_file { (f, o) } else { (o, f) };
            let extra = long.strip_suffix(short)?;
            if by.is_some_and(|b| b != extra) {
                return None;
            }
            by = Some(extra);
        }
        by.map(str::to_owned)
    };
    if let Some(by) = even(true) {
        return Some(Reindent::Deeper(by));
    }
    if let Some(by) = even(false) {
        return Some(Reindent::Shallower(by));
    }
    Some(Reindent::Kept)
}

/// `new` moved by the shift from `old` to the lines `found`, when the model wrote `new` at
/// `old`'s indentation; and what was done.
pub fn fit(found: &str, old: &str, new: String) -> (String, Option<Reindent>) {
    let Some(how) = shift(found, old) else {
        return (new, None);
    };
    if min_indent(&new) != min_indent(old) {
        // newString is already at another indentation than oldString: the model chose it.
        return (new, None);
    }
    let moved = |line: &str| -> Option<String> {
        if line.trim().is_empty() {
            return Some(line.to_owned());
        }
        match &how {
            Reindent::Deeper(by) => Some(format!("{by}{line}")),
            Reindent::Shallower(by) => line.strip_prefix(by.as_str()).map(str::to_owned),
            Reindent::Kept => None,
        }
    };
    let lines: Option<Vec<String>> = new.split('\n').map(moved).collect();
    match lines {
        Some(lines) => (lines.join("\n"), Some(how)),
        None => (new, Some(Reindent::Kept)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_shift_moves_new_string_and_an_uneven_one_keeps_it() {
        let found = "        if a {\n            b();\n        }";
        let (new, how) = fit(found, "if a {\n    b();\n}", "if a {\n    c();\n}".into());
        assert_eq!(new, "        if a {\n            c();\n        }");
        assert_eq!(how, Some(Reindent::Deeper("        ".into())));
        assert_eq!(
            how.unwrap().describe(),
            "newString was indented by 8 spaces more on each line, as the file's lines are."
        );
        // Shallower: the model wrote too deep.
        let (new, how) = fit("x\n  y", "\tx\n\t  y", "\tz\n\t  w".into());
        assert_eq!(
            (new.as_str(), how),
            ("z\n  w", Some(Reindent::Shallower("\t".into())))
        );
        // The file's lines sit at uneven depths from oldString's: as written, and said so.
        let (new, how) = fit("    a\n  b", "a\nb", "c\nd".into());
        assert_eq!((new.as_str(), how), ("c\nd", Some(Reindent::Kept)));
        // The same indentation: nothing to do.
        assert_eq!(fit("  a", "  a", "  b".into()), ("  b".into(), None));
        // newString already written at another depth than oldString: the model's choice.
        assert_eq!(fit("    a", "a", "    b".into()), ("    b".into(), None));
        assert_eq!(measure("\t  "), "1 tab and 2 spaces");
    }
}
