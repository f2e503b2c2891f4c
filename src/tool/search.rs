//! File search shared by `glob` and `grep`: ripgrep's `ignore` walker on all cores (respects
//! .gitignore, skips hidden files), its searcher, and newest-first ordering.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use grep_regex::RegexMatcher;
use grep_searcher::sinks::UTF8;
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

/// Every file under `root` that `keep` accepts (given its path relative to `root`), walked
/// on all cores. Only kept files are asked for their modification time.
pub fn walk_files(root: &Path, keep: impl Fn(&Path) -> bool + Sync) -> Vec<Found> {
    let found = Mutex::new(Vec::new());
    let keep = &keep;
    visit_files(root, || {
        let mut local = Gathered::new(&found);
        move |entry: &DirEntry| {
            let path = entry.path();
            if keep(path.strip_prefix(root).unwrap_or(path)) {
                local.items.push(Found {
                    path: path.to_owned(),
                    modified: modified(entry),
                });
            }
        }
    });
    found.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// Calls a visitor for every file under `root` (respecting ignore files), in parallel: `make`
/// makes one visitor per walker thread, so each can keep its own buffers.
fn visit_files<V: FnMut(&DirEntry) + Send>(root: &Path, make: impl Fn() -> V + Sync) {
    WalkBuilder::new(root).build_parallel().run(|| {
        let mut visit = make();
        Box::new(move |entry| {
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|t| t.is_file())
            {
                visit(&entry);
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
pub fn glob_matcher(pattern: &str) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("Invalid glob pattern `{pattern}`: {e}"))
}

/// Matching lines per file, newest files first, and the total count. Files are searched in
/// parallel as they are found; at most `LIMIT` lines are kept per file.
pub fn grep(
    root: &Path,
    matcher: &RegexMatcher,
    include: Option<&globset::GlobMatcher>,
) -> (Vec<FileMatches>, usize) {
    let total = AtomicUsize::new(0);
    let files = Mutex::new(Vec::new());
    visit_files(root, || {
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
            let mut lines = Vec::new();
            let mut count = 0usize;
            let _ = searcher.search_path(
                matcher,
                path,
                UTF8(|line, text| {
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
    (
        files.into_iter().map(|(f, _)| f).collect(),
        total.into_inner(),
    )
}
