//! Placing update hunks in a file's text (`\n` line ends): each after the previous one and
//! after its `@@` context line, at the end for `*** End of File`. The result is a list of
//! replacements, so the caller keeps each line's own ending; the file ends with a newline.

use super::Hunk;
use super::seek::{nearest, seek};
use crate::tool::files::endings::Replacement;

/// The replacements that apply `hunks` to `body`, or an error naming the hunk that does not
/// fit and showing the file's nearest lines.
pub fn apply_hunks(body: &str, hunks: &[Hunk], path: &str) -> Result<Vec<Replacement>, String> {
    // Split on `\n` alone: a `\r` left inside a line (`foo\r\r\n`) is the line's text.
    let mut lines: Vec<String> = body.split('\n').map(str::to_owned).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let mut placed: Vec<(usize, usize, &[String])> = Vec::new();
    let mut cursor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let fail = |what: String| failure(path, index, hunks.len(), &what, &lines, hunk);
        if let Some(context) = &hunk.context {
            let at = seek(&lines, std::slice::from_ref(context), cursor, false)
                .ok_or_else(|| fail(format!("its `@@ {context}` line is not in the file")))?;
            cursor = at + 1;
        }
        if hunk.old.is_empty() {
            let at = if hunk.context.is_some() && !hunk.end_of_file {
                cursor
            } else {
                lines.len()
            };
            placed.push((at, 0, &hunk.new));
            continue;
        }
        let (old, new) = (&hunk.old[..], &hunk.new[..]);
        let found = seek(&lines, old, cursor, hunk.end_of_file)
            .map(|at| (at, old, new))
            .or_else(|| {
                without_final_blank(old, new, |o| seek(&lines, o, cursor, hunk.end_of_file))
            })
            .ok_or_else(|| fail("its lines are not in the file".into()))?;
        let (at, old, new) = found;
        placed.push((at, old.len(), new));
        cursor = at + old.len();
    }
    placed.sort_by_key(|(at, len, _)| (*at, *len));
    if placed.windows(2).any(|w| w[0].0 + w[0].1 > w[1].0) {
        return Err(format!(
            "Two hunks of {path} change the same lines. Merge them into one hunk. Nothing was changed."
        ));
    }
    Ok(replacements(body, &lines, &placed))
}

/// A hunk whose old and new lines both end with a blank line the file may not have: the
/// match without it.
fn without_final_blank<'a>(
    old: &'a [String],
    new: &'a [String],
    seek: impl Fn(&[String]) -> Option<usize>,
) -> Option<(usize, &'a [String], &'a [String])> {
    let old = old.strip_suffix(&[String::new()])?;
    let new = new.strip_suffix(&[String::new()]).unwrap_or(new);
    (!old.is_empty()).then_some(())?;
    seek(old).map(|at| (at, old, new))
}

/// The placed hunks as changes to `body`'s bytes, and a final newline if it has none.
fn replacements(
    body: &str,
    lines: &[String],
    placed: &[(usize, usize, &[String])],
) -> Vec<Replacement> {
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        starts.push(at);
        at += line.len();
    }
    starts.truncate(lines.len());
    starts.push(body.len());
    let ends_open = !body.is_empty() && !body.ends_with('\n');
    let mut out: Vec<Replacement> = placed
        .iter()
        .map(|&(first, count, new)| {
            let mut text = String::new();
            if ends_open && first == lines.len() {
                text.push('\n');
            }
            for line in new {
                text.push_str(line);
                text.push('\n');
            }
            Replacement {
                range: starts[first]..starts[first + count],
                text,
            }
        })
        .collect();
    let touches_end = placed
        .iter()
        .any(|&(first, count, _)| first + count == lines.len());
    if ends_open && !touches_end {
        out.push(Replacement {
            range: body.len()..body.len(),
            text: "\n".into(),
        });
    }
    out
}

/// The error the model reads: which hunk, why, and where the file's nearest lines are.
fn failure(
    path: &str,
    index: usize,
    count: usize,
    why: &str,
    lines: &[String],
    hunk: &Hunk,
) -> String {
    let mut message = format!(
        "Hunk {} of {count} for {path} does not fit: {why}. The hunk looks for:\n{}\n",
        index + 1,
        hunk.old.join("\n")
    );
    match nearest(lines, &hunk.old) {
        Some(at) => {
            let to = (at + hunk.old.len() + 2).min(lines.len());
            let from = at.saturating_sub(2);
            message.push_str(&format!(
                "The nearest lines in the file ({}-{to}):\n",
                from + 1
            ));
            for (n, line) in lines[from..to].iter().enumerate() {
                message.push_str(&format!("{}: {line}\n", from + n + 1));
            }
        }
        None => message.push_str("No line of the file resembles it.\n"),
    }
    message.push_str("Nothing was changed: fix this hunk (read the file if needed) and send the whole patch again.");
    message
}
