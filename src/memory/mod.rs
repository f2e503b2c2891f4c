//! The agent's memory the person can read: short notes worth knowing in later sessions, in
//! plain Markdown files (one per project in Tandem's data dir, one for the person), each note
//! with where it came from; read into a session's system prompt (capped), and never holding
//! what looks like a secret.

pub mod secrets;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most of each file a system prompt carries.
const PROMPT_CAP: usize = 16 * 1024;

/// Whose memory a note belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// This project's (how to build and test it, its conventions).
    #[default]
    Project,
    /// The person's, in every project (their stated preferences).
    Person,
}

/// The file holding `scope`'s notes for the project at `project`.
pub fn file(scope: Scope, project: &Path) -> PathBuf {
    let dir = crate::paths::data_dir().join("memory");
    match scope {
        Scope::Person => dir.join("person.md"),
        Scope::Project => {
            let real = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
            let digest =
                ring::digest::digest(&ring::digest::SHA256, real.to_string_lossy().as_bytes());
            let hash: String = digest.as_ref()[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let name: String = real
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            dir.join("projects").join(format!("{name}-{hash}.md"))
        }
    }
}

/// A memory file's text (empty when there is none yet).
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The notes in a memory file's text: each `- ` bullet with the lines indented under it.
pub fn notes(text: &str) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(note) = line.strip_prefix("- ") {
            notes.push(note.to_owned());
        } else if line.starts_with("  ")
            && let Some(last) = notes.last_mut()
        {
            last.push('\n');
            last.push_str(line);
        }
    }
    notes
}

/// `text` with `note` added, headed when the file is new; `origin` says where it came from.
pub fn with_note(text: &str, scope: Scope, project: &Path, note: &str, origin: &str) -> String {
    let mut out = if text.trim().is_empty() {
        match scope {
            Scope::Project => format!(
                "# What Tandem remembers of {}\n\nEdit freely: each `- ` line is one note.\n\n",
                project.display()
            ),
            Scope::Person => "# What Tandem remembers of you\n\nEdit freely: each `- ` line is \
                              one note.\n\n"
                .to_owned(),
        }
    } else {
        let mut text = text.to_owned();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    };
    let note = note.split_whitespace().collect::<Vec<_>>().join(" ");
    out.push_str(&format!("- {note}\n  ({origin})\n"));
    out
}

/// `text` without the notes whose first line contains `words`; None when none does.
pub fn without_note(text: &str, words: &str) -> Option<String> {
    let mut out = String::new();
    let mut dropping = false;
    let mut dropped = false;
    for line in text.lines() {
        if let Some(note) = line.strip_prefix("- ") {
            dropping = note.contains(words);
            dropped |= dropping;
        } else if !line.starts_with("  ") {
            dropping = false;
        }
        if !dropping {
            out.push_str(line);
            out.push('\n');
        }
    }
    dropped.then_some(out)
}

/// What a session's system prompt carries of the memory for `project`: each file that has
/// notes, cut at a line to the cap; None when there are none.
pub fn for_prompt(project: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for (scope, title) in [
        (Scope::Project, "this project"),
        (Scope::Person, "the person"),
    ] {
        let path = file(scope, project);
        let text = read(&path);
        if notes(&text).is_empty() {
            continue;
        }
        let mut kept = String::new();
        for line in text.lines() {
            if kept.len() + line.len() + 1 > PROMPT_CAP {
                kept.push_str(&format!("(more notes in {})\n", path.display()));
                break;
            }
            kept.push_str(line);
            kept.push('\n');
        }
        parts.push(format!(
            "Memory of {title} from earlier sessions ({}):\n{}",
            path.display(),
            kept.trim_end()
        ));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_are_added_listed_and_removed_with_their_origin() {
        let project = Path::new("/work/p");
        let text = with_note("", Scope::Project, project, "Run  `make test`.", "from a");
        let text = with_note(
            &text,
            Scope::Project,
            project,
            "Tabs, not spaces.",
            "from b",
        );
        assert_eq!(
            notes(&text),
            [
                "Run `make test`.\n  (from a)",
                "Tabs, not spaces.\n  (from b)"
            ]
        );
        let text = without_note(&text, "make test").unwrap();
        assert_eq!(notes(&text), ["Tabs, not spaces.\n  (from b)"]);
        assert!(text.starts_with("# What Tandem remembers of /work/p\n"));
        assert_eq!(without_note(&text, "nothing like it"), None);
    }
}
