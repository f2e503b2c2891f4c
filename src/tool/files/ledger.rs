//! What the model of one session has seen of each file: the text it last read or wrote. A
//! change on disk since then (the person edited it, a formatter ran, another session wrote
//! it) refuses the next edit, and `write` over a file never seen is refused; edits of one
//! file are also made one at a time across the process, read to write.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::tool::ToolError;

/// How a tool is about to change a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// `write`: replaces the whole file, so it must have been read as it is now.
    Overwrite,
    /// `edit`, `apply_patch`: their match shows what the model knows; refused only when the
    /// file changed after the model read it.
    Edit,
}

/// One session's memory of the files its model saw.
#[derive(Debug, Default)]
pub struct FileLedger {
    seen: Mutex<HashMap<PathBuf, u64>>,
}

fn fingerprint(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl FileLedger {
    /// The model has seen `text` as `path`'s content (it read it, or wrote it).
    pub fn saw(&self, path: &Path, text: &str) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.insert(path.to_owned(), fingerprint(text));
    }

    /// The file is gone (deleted or moved away): nothing is known of it any more.
    pub fn forget(&self, path: &Path) {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.remove(path);
    }

    /// Whether `change` may go ahead on `path`, whose text is now `current` (`None`: it does
    /// not exist, and creating a file needs no read).
    pub fn check(
        &self,
        path: &Path,
        relative: &str,
        current: Option<&str>,
        change: Change,
    ) -> Result<(), ToolError> {
        let Some(current) = current else {
            return Ok(());
        };
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        match (seen.get(path), change) {
            (Some(&known), _) if known == fingerprint(current) => Ok(()),
            (Some(_), _) => Err(ToolError::failed(format!(
                "{relative} has changed since you last read it (edited by the user, a formatter or another session). Read it again, then make your change to what it holds now."
            ))),
            (None, Change::Edit) => Ok(()),
            (None, Change::Overwrite) => Err(ToolError::failed(format!(
                "{relative} already exists and you have not read it in this session. Read it first, so that nothing in it is lost, then write it (or change part of it with edit)."
            ))),
        }
    }
}

/// The lock every change to `path` takes from reading the file to writing it, so two calls
/// (of any session) on the same file run one after the other and the second sees the first.
pub async fn lock(path: &Path) -> tokio::sync::OwnedMutexGuard<()> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let lock = {
        let mut locks = LOCKS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        locks.retain(|_, l| Arc::strong_count(l) > 1);
        locks.entry(path.to_owned()).or_default().clone()
    };
    lock.lock_owned().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_changed_since_it_was_read_is_refused() {
        let ledger = FileLedger::default();
        let path = Path::new("/p/a.rs");
        assert!(ledger.check(path, "a.rs", None, Change::Overwrite).is_ok());
        assert!(ledger.check(path, "a.rs", Some("x"), Change::Edit).is_ok());
        let never_read = ledger.check(path, "a.rs", Some("x"), Change::Overwrite);
        assert!(
            never_read
                .unwrap_err()
                .to_string()
                .contains("you have not read it")
        );
        ledger.saw(path, "x");
        assert!(
            ledger
                .check(path, "a.rs", Some("x"), Change::Overwrite)
                .is_ok()
        );
        for change in [Change::Edit, Change::Overwrite] {
            let changed = ledger.check(path, "a.rs", Some("y"), change).unwrap_err();
            assert!(
                changed
                    .to_string()
                    .contains("a.rs has changed since you last read it")
            );
        }
        ledger.forget(path);
        assert!(ledger.check(path, "a.rs", Some("y"), Change::Edit).is_ok());
    }
}
