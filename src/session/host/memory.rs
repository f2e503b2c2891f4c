//! `/memory` and `/memory forget N`: the person's view of what the agent remembers of this
//! project and of them (numbered, with the files to edit by hand), answered at once.

use std::path::Path;

use crate::memory::{self, Scope};
use crate::message::PartBody;

use crate::command::MEMORY;

/// The answer to `content` if it is `/memory` (or `/memory forget N`); None otherwise.
pub(in crate::session) fn command(content: &[PartBody], project: &Path) -> Option<String> {
    let rest = crate::message::sole_text(content)?
        .trim()
        .strip_prefix('/')?
        .strip_prefix(MEMORY)?;
    if !rest.is_empty() && !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let files = [Scope::Project, Scope::Person].map(|scope| memory::file(scope, project));
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(match words.as_slice() {
        [] => listing(&files),
        ["forget", n] => match n.parse::<usize>() {
            Ok(n) => forget(&files, n),
            Err(_) => "Use /memory forget N, with N from /memory's list.".into(),
        },
        _ => "Use /memory to see the notes, /memory forget N to drop one.".into(),
    })
}

/// Every note, numbered across both files (the project's first).
fn listing(files: &[std::path::PathBuf; 2]) -> String {
    let mut text = String::new();
    let mut n = 0;
    for (path, title) in files.iter().zip(["This project", "You"]) {
        let notes = memory::notes(&memory::read(path));
        text.push_str(&format!("{title} ({}):\n", path.display()));
        if notes.is_empty() {
            text.push_str("  (no notes)\n");
        }
        for note in notes {
            n += 1;
            text.push_str(&format!("{n}. {note}\n"));
        }
        text.push('\n');
    }
    text.push_str("Edit the files freely; /memory forget N drops a note.");
    text
}

/// Drops note `n` of the listing.
fn forget(files: &[std::path::PathBuf; 2], n: usize) -> String {
    let mut seen = 0;
    for path in files {
        let text = memory::read(path);
        let notes = memory::notes(&text);
        if n > seen && n <= seen + notes.len() {
            let first_line = notes[n - seen - 1]
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned();
            let Some(after) = memory::without_note(&text, &first_line) else {
                break;
            };
            return match crate::secret::write_private(path, after.as_bytes()) {
                Ok(()) => format!("Forgot: {first_line}"),
                Err(e) => format!("The memory was not changed: {e:#}"),
            };
        }
        seen += notes.len();
    }
    format!("There is no note {n}. /memory lists them.")
}
