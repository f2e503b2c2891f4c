//! A snapshot half taken: the files staged in the snapshot index, held until their tree is
//! written. Splitting the two lets the slow half (writing the tree) run while the turn begins:
//! the staged index no longer depends on the files.

use tokio::sync::OwnedMutexGuard;

use super::SnapshotError;
use super::git::Git;

/// Files staged, their tree not yet written; the index stays held until it is.
pub struct Staged {
    git: Git,
    _held: OwnedMutexGuard<bool>,
}

impl Staged {
    pub(super) fn new(git: Git, held: OwnedMutexGuard<bool>) -> Self {
        Self { git, _held: held }
    }

    /// Writes the staged files' tree and returns its id.
    pub async fn tree(self) -> Result<String, SnapshotError> {
        let out = self.git.run(&["write-tree"], None).await?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }
}
