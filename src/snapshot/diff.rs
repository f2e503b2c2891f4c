//! What changed between two snapshot trees: git's raw and numstat output parsed into one entry
//! per file, and the files' contents on both sides read in one `cat-file --batch` call.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::SnapshotError;
use super::git::Git;
use crate::message::DiffSummary;

/// The id git writes for "no object" (a file absent on one side).
const NO_OBJECT: &str = "0000000000000000000000000000000000000000";

/// How a file differs between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeStatus {
    Added,
    Modified,
    Deleted,
}

/// One changed file, relative to the project root; `before`/`after` are its whole text (None
/// when absent on that side, or binary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    pub status: ChangeStatus,
    pub additions: u64,
    pub deletions: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A changed file as git lists it, before its contents are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    pub path: String,
    pub status: ChangeStatus,
    pub old_object: Option<String>,
    pub new_object: Option<String>,
    pub additions: u64,
    pub deletions: u64,
    pub binary: bool,
}

/// The files that differ between trees `from` and `to`, with line counts.
pub(super) async fn entries(git: &Git, from: &str, to: &str) -> Result<Vec<Entry>, SnapshotError> {
    entries_in(git, from, to, &[]).await
}

/// Like `entries`, only among `paths` (all files when empty).
pub(super) async fn entries_in(
    git: &Git,
    from: &str,
    to: &str,
    paths: &[String],
) -> Result<Vec<Entry>, SnapshotError> {
    let mut args = vec![
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--raw",
        "--numstat",
        from,
        to,
    ];
    if !paths.is_empty() {
        args.push("--");
        args.extend(paths.iter().map(String::as_str));
    }
    let out = git.run(&args, None).await?;
    Ok(parse(&String::from_utf8_lossy(&out)))
}

/// Parses `diff-tree -z --raw --numstat`: raw records (`:modes objects status`, then the path)
/// come first, then numstat records (`added\tdeleted\tpath`, `-` for binary files).
fn parse(out: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_path: HashMap<String, usize> = HashMap::new();
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        if let Some(raw) = field.strip_prefix(':') {
            let Some(path) = fields.next() else { break };
            let words: Vec<&str> = raw.split(' ').collect();
            let [old_mode, new_mode, old_object, new_object, status] = words[..] else {
                continue;
            };
            // Submodules (gitlinks) name commits this store does not hold.
            if old_mode == "160000" || new_mode == "160000" {
                continue;
            }
            let status = match status.chars().next() {
                Some('A') => ChangeStatus::Added,
                Some('D') => ChangeStatus::Deleted,
                _ => ChangeStatus::Modified,
            };
            let object = |o: &str| (o != NO_OBJECT).then(|| o.to_owned());
            by_path.insert(path.to_owned(), entries.len());
            entries.push(Entry {
                path: path.to_owned(),
                status,
                old_object: object(old_object),
                new_object: object(new_object),
                additions: 0,
                deletions: 0,
                binary: false,
            });
        } else {
            let mut counts = field.splitn(3, '\t');
            let (Some(added), Some(deleted), Some(path)) =
                (counts.next(), counts.next(), counts.next())
            else {
                continue;
            };
            if let Some(&at) = by_path.get(path) {
                let entry = &mut entries[at];
                entry.binary = added == "-";
                entry.additions = added.parse().unwrap_or(0);
                entry.deletions = deleted.parse().unwrap_or(0);
            }
        }
    }
    entries
}

/// The totals of `entries`, as a message keeps them.
pub(super) fn summarise(entries: &[Entry]) -> DiffSummary {
    DiffSummary {
        files: entries.len() as u64,
        additions: entries.iter().map(|e| e.additions).sum(),
        deletions: entries.iter().map(|e| e.deletions).sum(),
    }
}

/// `entries` with both sides' contents, read in one batch.
pub(super) async fn with_contents(
    git: &Git,
    entries: Vec<Entry>,
) -> Result<Vec<FileChange>, SnapshotError> {
    let wanted: Vec<&str> = entries
        .iter()
        .filter(|e| !e.binary)
        .flat_map(|e| [e.old_object.as_deref(), e.new_object.as_deref()])
        .flatten()
        .collect();
    let blobs = read_blobs(git, &wanted).await?;
    let text = |object: &Option<String>| {
        object
            .as_ref()
            .and_then(|o| blobs.get(o))
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
    };
    Ok(entries
        .iter()
        .map(|e| FileChange {
            path: e.path.clone(),
            status: e.status,
            additions: e.additions,
            deletions: e.deletions,
            binary: e.binary,
            before: if e.binary { None } else { text(&e.old_object) },
            after: if e.binary { None } else { text(&e.new_object) },
        })
        .collect())
}

/// The contents of `objects` (ids, or `<tree>:<path>` names), keyed by the name asked for,
/// from one `cat-file --batch`; names git does not find are left out.
pub(super) async fn read_blobs(
    git: &Git,
    objects: &[&str],
) -> Result<HashMap<String, Vec<u8>>, SnapshotError> {
    let mut found = HashMap::new();
    if objects.is_empty() {
        return Ok(found);
    }
    let input = objects.join("\n") + "\n";
    let out = git
        .run(&["cat-file", "--batch"], Some(input.as_bytes()))
        .await?;
    // One answer per name, in order: "<id> <type> <size>\n<body>\n", or "<name> missing\n".
    let mut rest = &out[..];
    for name in objects {
        let Some(end) = rest.iter().position(|b| *b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 1..];
        let mut words = header.rsplitn(3, ' ');
        let (Some(size), Some(_kind), Some(_object)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        let Ok(size) = size.parse::<usize>() else {
            continue; // "missing", "ambiguous"
        };
        let body = &rest[..size.min(rest.len())];
        found.insert((*name).to_owned(), body.to_vec());
        rest = &rest[(size + 1).min(rest.len())..];
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_and_numstat_records_merge_per_file() {
        let out = ":100644 100644 aaa bbb M\0a\0:100644 000000 ccc 0000000000000000000000000000000000000000 D\0b\0:000000 100644 0000000000000000000000000000000000000000 ddd A\0c d\0:160000 160000 e f M\0sub\0\
                   1\t0\ta\0\
                   0\t3\tb\0-\t-\tc d\0";
        let entries = parse(out);
        assert_eq!(entries.len(), 3, "{entries:?}");
        assert_eq!(entries[0].status, ChangeStatus::Modified);
        assert_eq!((entries[0].additions, entries[0].deletions), (1, 0));
        assert_eq!(entries[1].status, ChangeStatus::Deleted);
        assert_eq!(entries[1].new_object, None);
        assert_eq!(entries[1].deletions, 3);
        assert_eq!(entries[2].path, "c d");
        assert!(entries[2].binary);
        assert_eq!(
            summarise(&entries),
            DiffSummary {
                files: 3,
                additions: 1,
                deletions: 3
            }
        );
    }
}
