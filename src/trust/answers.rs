//! The person's lasting answers about folders, one per folder with the fingerprint it was
//! given for, kept in `trust.json` in Tandem's data dir (written whole, then renamed in place).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One folder's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub fingerprint: String,
    pub trusted: bool,
    /// When it was given (ms since the epoch).
    pub at: i64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Book {
    #[serde(default)]
    folders: BTreeMap<String, Answer>,
}

fn file() -> PathBuf {
    crate::paths::data_dir().join("trust.json")
}

fn read() -> Book {
    std::fs::read(file())
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn write(book: &Book) -> std::io::Result<()> {
    let path = file();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temporary = path.with_extension(format!("json.{}", std::process::id()));
    std::fs::write(&temporary, serde_json::to_vec_pretty(book)?)?;
    std::fs::rename(&temporary, &path)
}

fn key(folder: &Path) -> String {
    folder.display().to_string()
}

/// The folder's stored answer, whatever fingerprint it was given for.
pub fn stored(folder: &Path) -> Option<Answer> {
    read().folders.get(&key(folder)).cloned()
}

/// Keeps `answer` for `folder`, replacing any earlier one.
pub fn store(folder: &Path, answer: Answer) -> std::io::Result<()> {
    let mut book = read();
    book.folders.insert(key(folder), answer);
    write(&book)
}

/// Forgets the folder's answer; true if there was one.
pub fn forget(folder: &Path) -> std::io::Result<bool> {
    let mut book = read();
    let had = book.folders.remove(&key(folder)).is_some();
    if had {
        write(&book)?;
    }
    Ok(had)
}

/// Every folder with its answer.
pub fn all() -> Vec<(String, Answer)> {
    read().folders.into_iter().collect()
}
