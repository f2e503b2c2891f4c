//! File walking shared by `glob`, `grep` and `list`: ripgrep's `ignore` walker (respects
//! .gitignore, skips hidden files), with the modification time for newest-first ordering.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ignore::WalkBuilder;

/// A file found under the search root.
pub struct Found {
    pub path: PathBuf,
    pub modified: SystemTime,
}

/// Every file under `root` that `keep` accepts (given its path relative to `root`).
pub fn walk_files(root: &Path, keep: impl Fn(&Path) -> bool) -> Vec<Found> {
    let mut found = Vec::new();
    for entry in WalkBuilder::new(root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        if !keep(rel) {
            continue;
        }
        let modified = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        found.push(Found {
            path: entry.into_path(),
            modified,
        });
    }
    found
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
