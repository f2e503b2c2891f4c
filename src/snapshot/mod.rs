//! Git-backed snapshots of a project's files, kept in Tandem's own object store under the data
//! dir: record, compare, restore. It never touches the person's repository, index or hooks.

mod diff;
mod git;
pub(crate) use git::FOREIGN_ENV;
mod restore;
mod staged;
mod workspace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use diff::{ChangeStatus, FileChange};
pub use restore::Restored;
pub use staged::Staged;
pub use workspace::{WorkspaceSnapshots, WorkspaceStaged, trees_of};

use crate::message::DiffSummary;

/// What can go wrong with a snapshot.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot run git (snapshots need it on PATH): {0}")]
    NoGit(std::io::Error),
    #[error("git {command} failed: {stderr}")]
    Git { command: String, stderr: String },
    #[error("snapshot file error: {0}")]
    Io(std::io::Error),
    #[error("the snapshot has lost object {object}")]
    Missing { object: String },
    #[error("refusing to restore {path}: it resolves outside the project")]
    Outside { path: String },
}

/// The files that differ between two snapshots, and by how much.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    pub paths: Vec<String>,
    pub summary: DiffSummary,
}

/// Every project's snapshot store, under one root (`<data>/snapshot`).
pub struct Snapshots {
    root: Option<PathBuf>,
    projects: Mutex<HashMap<PathBuf, Arc<ProjectSnapshots>>>,
}

impl Snapshots {
    /// Snapshots kept under `root`.
    pub fn new(root: PathBuf) -> Self {
        Self {
            root: Some(root),
            projects: Mutex::default(),
        }
    }

    /// No snapshots at all (turned off in the config).
    pub fn disabled() -> Self {
        Self {
            root: None,
            projects: Mutex::default(),
        }
    }

    /// The snapshots of the project at `work_tree`; None when snapshots are off, or the
    /// directory is one no project lives in (the file system root, the home directory).
    pub fn project(&self, work_tree: &Path) -> Option<Arc<ProjectSnapshots>> {
        let root = self.root.as_ref()?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if work_tree.parent().is_none() || home.as_deref() == Some(work_tree) {
            return None;
        }
        let mut projects = self
            .projects
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let project = projects.entry(work_tree.to_owned()).or_insert_with(|| {
            Arc::new(ProjectSnapshots {
                git: git::Git {
                    git_dir: git::repository_for(root, work_tree),
                    work_tree: work_tree.to_owned(),
                },
                ready: Arc::new(tokio::sync::Mutex::new(false)),
            })
        });
        Some(project.clone())
    }
}

impl Snapshots {
    /// The snapshots of the workspace at `cwd` with its other `roots` (each root none lives
    /// in left out); None when the project itself has none.
    pub fn workspace(&self, cwd: &Path, roots: &[PathBuf]) -> Option<Arc<WorkspaceSnapshots>> {
        let project = self.project(cwd)?;
        let others = roots.iter().filter_map(|root| self.project(root)).collect();
        Some(Arc::new(WorkspaceSnapshots::new(project, others)))
    }
}

/// One project's snapshots. Calls are serialised: git's index is one file.
pub struct ProjectSnapshots {
    git: git::Git,
    /// Held for each call; true once the repository exists and its excludes are current.
    ready: Arc<tokio::sync::Mutex<bool>>,
}

impl ProjectSnapshots {
    pub fn work_tree(&self) -> &Path {
        &self.git.work_tree
    }

    /// Records the project's files as they are now (honouring `.gitignore`) and returns the
    /// tree's id. Unchanged files cost a stat each.
    pub async fn track(&self) -> Result<String, SnapshotError> {
        self.stage().await?.tree().await
    }

    /// The first half of `track`: the files as they are now, staged in the snapshot index,
    /// which stays held (nothing else stages) until their tree is written.
    pub async fn stage(&self) -> Result<Staged, SnapshotError> {
        let mut ready = self.ready.clone().lock_owned().await;
        if !*ready {
            self.git.prepare().await?;
            *ready = true;
        }
        self.git
            .run(&["add", "--all", "--ignore-errors", "."], None)
            .await
            .or_else(|error| {
                // A file that vanished or could not be read mid-walk still leaves a usable index.
                match &error {
                    SnapshotError::Git { stderr, .. } if stderr.contains("adding files failed") => {
                        Ok(Vec::new())
                    }
                    _ => Err(error),
                }
            })?;
        Ok(Staged::new(self.git.clone(), ready))
    }

    /// The files that changed from tree `from` to tree `to` (relative to the project root),
    /// and the totals.
    pub async fn changed(&self, from: &str, to: &str) -> Result<Changed, SnapshotError> {
        let _held = self.ready.lock().await;
        let entries = diff::entries(&self.git, from, to).await?;
        Ok(Changed {
            summary: diff::summarise(&entries),
            paths: entries.into_iter().map(|e| e.path).collect(),
        })
    }

    /// Like `changed`, only among `paths`.
    pub async fn changed_in(
        &self,
        from: &str,
        to: &str,
        paths: &[String],
    ) -> Result<Changed, SnapshotError> {
        let _held = self.ready.lock().await;
        let entries = if paths.len() > 500 {
            // Too many for one command line: compare everything and keep those asked for.
            let wanted: std::collections::HashSet<&String> = paths.iter().collect();
            let all = diff::entries(&self.git, from, to).await?;
            all.into_iter()
                .filter(|e| wanted.contains(&e.path))
                .collect()
        } else {
            diff::entries_in(&self.git, from, to, paths).await?
        };
        Ok(Changed {
            summary: diff::summarise(&entries),
            paths: entries.into_iter().map(|e| e.path).collect(),
        })
    }

    /// Every changed file from `from` to `to`, with its contents on both sides.
    pub async fn changes(&self, from: &str, to: &str) -> Result<Vec<FileChange>, SnapshotError> {
        let _held = self.ready.lock().await;
        let entries = diff::entries(&self.git, from, to).await?;
        diff::with_contents(&self.git, entries).await
    }

    /// Puts `paths` back as `tree` holds them; files it lacks are removed. Refuses (writing
    /// nothing) if any path would land outside the project.
    pub async fn restore(&self, tree: &str, paths: &[String]) -> Result<Restored, SnapshotError> {
        let _held = self.ready.lock().await;
        restore::restore(&self.git, tree, paths).await
    }

    /// Refuses (with the first offender) if any of `paths` would land outside the project.
    pub fn check_inside(&self, paths: &[String]) -> Result<(), SnapshotError> {
        restore::check_inside(&self.git.work_tree, paths)
    }

    /// Drops every object no tree in `keep` (nor the current index) needs, once older than
    /// `grace` (a snapshot another process took a moment ago may not be stored yet).
    pub async fn keep_only(
        &self,
        keep: &[String],
        grace: std::time::Duration,
    ) -> Result<(), SnapshotError> {
        let _held = self.ready.lock().await;
        if !self.git.git_dir.join("HEAD").exists() {
            return Ok(());
        }
        let listing: String = keep
            .iter()
            .map(|tree| format!("040000 tree {tree}\t{tree}\n"))
            .collect();
        let holder = self
            .git
            .run(&["mktree", "--missing"], Some(listing.as_bytes()))
            .await?;
        let holder = String::from_utf8_lossy(&holder).trim().to_owned();
        let commit = self
            .git
            .run(&["commit-tree", &holder, "-m", "snapshots in use"], None)
            .await?;
        let commit = String::from_utf8_lossy(&commit).trim().to_owned();
        self.git
            .run(
                &["update-ref", "--no-deref", "refs/tandem/keep", &commit],
                None,
            )
            .await?;
        let expire = match grace.as_secs() {
            0 => "--expire=now".to_owned(),
            seconds => format!("--expire={seconds}.seconds.ago"),
        };
        self.git.run(&["prune", &expire], None).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
