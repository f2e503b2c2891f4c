//! Line continuation as bash reads it: a backslash-newline is removed before anything else,
//! in command text, inside double quotes and `${…}`, and in expanded here-document bodies
//! (so a split `$(` or a here-document's closing line joined from two lines counts), but
//! not inside single quotes, `$'…'`, comments or quoted here-document bodies.

use super::scan::{QuoteKind, scan};

/// How many times the line is joined again (a join can reveal another quote or
/// here-document); past that, the line is not read.
const MAX_ROUNDS: usize = 4;

/// `line` with every backslash-newline bash removes taken out; `None` when it did not settle
/// (the caller reads nothing of it).
pub fn joined(line: &str) -> Option<String> {
    let mut text = line.to_owned();
    for _ in 0..MAX_ROUNDS {
        match join_once(&text) {
            None => return Some(text),
            Some(next) => text = next,
        }
    }
    None
}

/// One pass; `None` when nothing was removed.
fn join_once(line: &str) -> Option<String> {
    if !line.contains("\\\n") {
        return None;
    }
    let found = scan(line);
    let mut kept: Vec<(usize, usize)> = found
        .quotes
        .iter()
        .filter(|q| {
            matches!(
                q.kind,
                QuoteKind::Single | QuoteKind::AnsiC | QuoteKind::Comment
            )
        })
        .map(|q| (q.start, q.end))
        .collect();
    kept.extend(
        found
            .heredocs
            .iter()
            .filter(|h| !h.expands)
            .map(|h| (h.body_start, h.body_end)),
    );
    let inside = |i: usize| kept.iter().any(|(start, end)| i >= *start && i < *end);
    let bytes = line.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && !inside(i) {
            match bytes.get(i + 1) {
                Some(b'\n') => {
                    changed = true;
                    i += 2;
                }
                Some(next) => {
                    out.extend_from_slice(&[b'\\', *next]);
                    i += 2;
                }
                None => {
                    out.push(b'\\');
                    i += 1;
                }
            }
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    // Only ASCII bytes were removed, so the rest is still UTF-8.
    changed.then(|| String::from_utf8(out).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_where_bash_joins_and_kept_where_it_does_not() {
        assert_eq!(joined("echo $\\\n(id)").unwrap(), "echo $(id)");
        assert_eq!(joined("echo \"a $\\\n{x}\"").unwrap(), "echo \"a ${x}\"");
        assert_eq!(joined("echo 'a\\\nb'").unwrap(), "echo 'a\\\nb'");
        assert_eq!(joined("echo $'a\\\nb'").unwrap(), "echo $'a\\\nb'");
        assert_eq!(joined("echo x # c \\\nls").unwrap(), "echo x # c \\\nls");
        assert_eq!(joined("echo \\\\\nls").unwrap(), "echo \\\\\nls");
        assert_eq!(
            joined("cat <<EOF\nEO\\\nF\nrm -rf ~\nEOF").unwrap(),
            "cat <<EOF\nEOF\nrm -rf ~\nEOF"
        );
        assert_eq!(
            joined("cat <<'EOF'\nEO\\\nF\nEOF").unwrap(),
            "cat <<'EOF'\nEO\\\nF\nEOF"
        );
        assert_eq!(
            joined("cat <<EO\\\nF\nx\nEOF").unwrap(),
            "cat <<EOF\nx\nEOF"
        );
    }
}
