//! Where the whole of a cut tool output is kept: a folder per project, and in it one per session
//! named with a keyed hash (HMAC-SHA-256 under a secret in the data dir) so no session can guess
//! another's; folders unused for 7 days are pruned.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ring::hmac;

/// How long a session's saved outputs are kept after their last write.
pub const KEEP: Duration = Duration::from_secs(7 * 24 * 3600);

/// The folder every project's saved outputs live under.
pub fn root() -> PathBuf {
    crate::paths::data_dir().join("tool-output")
}

/// The folder session `session` of `project` saves outputs to. `None` when the secret the
/// names are made with cannot be read or made (saving then fails and the model is told).
pub fn dir(project: &Path, session: &str) -> Option<PathBuf> {
    let key = secret()?;
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, &key), session.as_bytes());
    let name: String = tag.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(root().join(project_folder(project)).join(name))
}

/// `<name>-<hash of the path>`: readable, and distinct for projects of the same name.
fn project_folder(project: &Path) -> String {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        project.as_os_str().as_encoded_bytes(),
    );
    let hash: String = digest.as_ref()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    crate::paths::folder_name(project, &hash)
}

/// The secret the session folders are named with, made on first use (mode 0600) and read once
/// a process.
fn secret() -> Option<Vec<u8>> {
    static SECRET: std::sync::OnceLock<Option<Vec<u8>>> = std::sync::OnceLock::new();
    SECRET
        .get_or_init(|| {
            let file = crate::paths::data_dir().join("tool-output.key");
            crate::secret::kept(&file).ok().map(String::into_bytes)
        })
        .clone()
}

/// Removes session folders whose newest file is older than `older_than`; returns how many.
pub fn prune(older_than: Duration) -> usize {
    let Some(cutoff) = SystemTime::now().checked_sub(older_than) else {
        return 0;
    };
    let mut removed = 0;
    let Ok(projects) = std::fs::read_dir(root()) else {
        return 0;
    };
    for project in projects.flatten() {
        let Ok(sessions) = std::fs::read_dir(project.path()) else {
            continue;
        };
        for session in sessions.flatten() {
            let path = session.path();
            if newest(&path).is_some_and(|t| t < cutoff) && std::fs::remove_dir_all(&path).is_ok() {
                removed += 1;
            }
        }
        // An emptied project folder goes too.
        let _ = std::fs::remove_dir(project.path());
    }
    removed
}

/// The latest modification time of `dir` and the files in it.
fn newest(dir: &Path) -> Option<SystemTime> {
    let mut latest = std::fs::symlink_metadata(dir).ok()?.modified().ok()?;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        if let Ok(time) = entry.metadata().and_then(|m| m.modified()) {
            latest = latest.max(time);
        }
    }
    Some(latest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_get_distinct_unguessable_folders_under_their_project() {
        let project = Path::new("/work/app");
        let a = project_folder(project);
        assert!(a.starts_with("app-") && a.len() == 4 + 16, "{a}");
        assert_ne!(a, project_folder(Path::new("/home/app")));
    }
}
