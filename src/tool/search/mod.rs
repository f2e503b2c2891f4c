//! File search shared by `glob` and `grep`: ripgrep's `ignore` walker on all cores (respects
//! .gitignore, skips hidden files), its searcher, and newest-first ordering. Paths that could
//! not be walked or searched are counted and reported, never dropped silently.

pub(in crate::tool) mod glob;
pub(in crate::tool) mod grep;
pub(in crate::tool) mod list;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use grep_regex::RegexMatcher;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::{DirEntry, WalkBuilder, WalkState};

/// How many results `glob` and `grep` show.
pub const LIMIT: usize = 100;
const MAX_LINE_CHARS: usize = 2000;

/// The matching lines of one file: `(line number, text)`.
pub struct FileMatches {
    pub path: PathBuf,
    pub lines: Vec<(u64, String)>,
}

/// A file found under the search root.
pub struct Found {
    pub path: PathBuf,
    pub modified: SystemTime,
}

/// How many examples of unreadable paths a report names.
const SKIPPED_EXAMPLES: usize = 3;

/// What the walk or the search could not read: how many, and the first few errors (each
/// names its path).
#[derive(Debug, Default)]
pub struct Skipped {
    pub count: usize,
    pub examples: Vec<String>,
    /// Files left out because the read rules do not allow reading them without asking.
    pub withheld: usize,
}

impl Skipped {
    pub fn add(&mut self, error: String) {
        self.count += 1;
        if self.examples.len() < SKIPPED_EXAMPLES {
            self.examples.push(error);
        }
    }

    /// A line for the tool's output, when anything was skipped.
    pub fn note(&self) -> Option<String> {
        let unread = self.unread_note();
        let withheld = (self.withheld > 0).then(|| {
            format!(
                "({} file{} left out: the read rules ask before {} read (.env files, say); read {} by name to ask)",
                self.withheld,
                if self.withheld == 1 { " was" } else { "s were" },
                if self.withheld == 1 { "it is" } else { "they are" },
                if self.withheld == 1 { "it" } else { "one" },
            )
        });
        match (unread, withheld) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (a, b) => a.or(b),
        }
    }

    fn unread_note(&self) -> Option<String> {
        (self.count > 0).then(|| {
            format!(
                "({} path{} could not be read and {} left out: {}{})",
                self.count,
                if self.count == 1 { "" } else { "s" },
                if self.count == 1 { "was" } else { "were" },
                self.examples.join("; "),
                if self.count > self.examples.len() {
                    "; …"
                } else {
                    ""
                }
            )
        })
    }
}

/// A search's metadata, with the number of skipped and withheld paths when there were any.
pub fn skipped_metadata(mut metadata: serde_json::Value, skipped: &Skipped) -> serde_json::Value {
    if skipped.count > 0 {
        metadata["skipped"] = skipped.count.into();
    }
    if skipped.withheld > 0 {
        metadata["withheld"] = skipped.withheld.into();
    }
    metadata
}

fn withhold(skipped: &Mutex<Skipped>) {
    skipped.lock().unwrap_or_else(|p| p.into_inner()).withheld += 1;
}

fn record(skipped: &Mutex<Skipped>, error: String) {
    skipped.lock().unwrap_or_else(|p| p.into_inner()).add(error);
}

/// Every file under `root` that `keep` accepts (given its path relative to `root`) and
/// `readable` allows (given its path), walked on all cores, and what could not be walked or
/// was withheld. Only kept files are asked for their modification time.
pub fn walk_files(
    root: &Path,
    keep: impl Fn(&Path) -> bool + Sync,
    readable: &(dyn Fn(&Path) -> bool + Sync),
) -> (Vec<Found>, Skipped) {
    let found = Mutex::new(Vec::new());
    let skipped = Mutex::new(Skipped::default());
    let keep = &keep;
    let skipped_ref = &skipped;
    visit_files(root, &skipped, || {
        let skipped = skipped_ref;
        let mut local = Gathered::new(&found);
        move |entry: &DirEntry| {
            let path = entry.path();
            if keep(path.strip_prefix(root).unwrap_or(path)) {
                if !readable(path) {
                    withhold(skipped);
                    return;
                }
                local.items.push(Found {
                    path: path.to_owned(),
                    modified: modified(entry),
                });
            }
        }
    });
    (
        found.into_inner().unwrap_or_else(|p| p.into_inner()),
        skipped.into_inner().unwrap_or_else(|p| p.into_inner()),
    )
}

/// Calls a visitor for every file under `root` (respecting ignore files), in parallel: `make`
/// makes one visitor per walker thread, so each can keep its own buffers. Walk errors (an
/// unreadable folder, a broken ignore file) go to `skipped`.
fn visit_files<V: FnMut(&DirEntry) + Send>(
    root: &Path,
    skipped: &Mutex<Skipped>,
    make: impl Fn() -> V + Sync,
) {
    WalkBuilder::new(root).build_parallel().run(|| {
        let mut visit = make();
        Box::new(move |entry| {
            match entry {
                Err(error) => record(skipped, error.to_string()),
                Ok(entry) => {
                    if let Some(error) = entry.error() {
                        record(skipped, error.to_string());
                    }
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        visit(&entry);
                    }
                }
            }
            WalkState::Continue
        })
    });
}

fn modified(entry: &DirEntry) -> SystemTime {
    entry
        .metadata()
        .ok()
        .and_then(|m| m.modified().ok())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// One walker thread's results, handed to the shared list once, when the thread is done.
struct Gathered<'a, T> {
    items: Vec<T>,
    into: &'a Mutex<Vec<T>>,
}

impl<'a, T> Gathered<'a, T> {
    fn new(into: &'a Mutex<Vec<T>>) -> Self {
        Self {
            items: Vec::new(),
            into,
        }
    }
}

impl<T> Drop for Gathered<'_, T> {
    fn drop(&mut self) {
        self.into
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .append(&mut self.items);
    }
}

/// Newest first, then by path for a stable order.
pub fn newest_first(found: &mut [Found]) {
    found.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// A glob that may cross directories (`*.rs` matches `src/a.rs`), with a model-readable error.
pub fn glob_matcher(pattern: &str) -> Result<globset::GlobMatcher, super::ToolError> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| super::ToolError::failed(format!("Invalid glob pattern `{pattern}`: {e}")))
}

/// What `grep` found: matching lines per file (newest files first), the total count, and what
/// could not be searched.
pub struct GrepReport {
    pub files: Vec<FileMatches>,
    pub total: usize,
    pub skipped: Skipped,
}

/// Searches every file under `root` that `readable` allows, in parallel as files are found;
/// at most `LIMIT` lines are kept per file. Lines that are not UTF-8 are shown with
/// replacement characters.
pub fn grep(
    root: &Path,
    matcher: &RegexMatcher,
    include: Option<&globset::GlobMatcher>,
    readable: &(dyn Fn(&Path) -> bool + Sync),
) -> GrepReport {
    let total = AtomicUsize::new(0);
    let files = Mutex::new(Vec::new());
    let skipped = Mutex::new(Skipped::default());
    let skipped_files = &skipped;
    visit_files(root, &skipped, || {
        let mut local = Gathered::new(&files);
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(true)
            .build();
        let total = &total;
        move |entry: &DirEntry| {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(path);
            if include.is_some_and(|g| {
                !g.is_match(rel) && !rel.file_name().is_some_and(|n| g.is_match(n))
            }) {
                return;
            }
            if !readable(path) {
                withhold(skipped_files);
                return;
            }
            let mut lines = Vec::new();
            let mut count = 0usize;
            let searched = searcher.search_path(
                matcher,
                path,
                Lossy(|line, text| {
                    count += 1;
                    if lines.len() < LIMIT {
                        let text = text.trim_end_matches(['\n', '\r']);
                        let text = match text.char_indices().nth(MAX_LINE_CHARS) {
                            Some((cut, _)) => format!("{}...", &text[..cut]),
                            None => text.to_owned(),
                        };
                        lines.push((line, text));
                    }
                    Ok(true)
                }),
            );
            if let Err(error) = searched {
                record(skipped_files, format!("{}: {error}", path.display()));
            }
            if count > 0 {
                total.fetch_add(count, Ordering::Relaxed);
                let matches = FileMatches {
                    path: path.to_owned(),
                    lines,
                };
                local.items.push((matches, modified(entry)));
            }
        }
    });
    let mut files = files.into_inner().unwrap_or_else(|p| p.into_inner());
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.path.cmp(&b.0.path)));
    GrepReport {
        files: files.into_iter().map(|(f, _)| f).collect(),
        total: total.into_inner(),
        skipped: skipped.into_inner().unwrap_or_else(|p| p.into_inner()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_ignore_file_is_reported_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".ignore"), "{a\n").unwrap();
        std::fs::write(dir.path().join("a.txt"), "needle\n").unwrap();
        let (found, skipped) = walk_files(dir.path(), |_| true, &|_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(skipped.count, 1, "{skipped:?}");
        assert!(skipped.note().unwrap().contains(".ignore"), "{skipped:?}");
        let matcher = RegexMatcher::new_line_matcher("needle").unwrap();
        let report = grep(dir.path(), &matcher, None, &|_| true);
        assert_eq!((report.total, report.skipped.count), (1, 1));
    }

    #[test]
    fn a_line_that_is_not_utf8_still_matches() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9 needle\n").unwrap();
        let matcher = RegexMatcher::new_line_matcher("needle").unwrap();
        let report = grep(dir.path(), &matcher, None, &|_| true);
        assert_eq!(report.total, 1);
        assert_eq!(report.files[0].lines[0].1, "caf\u{fffd} needle");
        assert_eq!(report.skipped.count, 0);
    }
}
