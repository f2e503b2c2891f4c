//! A git worktree per isolated subagent: made on a new branch from the caller's state as it is
//! (uncommitted and untracked files included, the person's index untouched), merged back
//! three-way into the caller's files when the child ends (a conflict writes nothing and keeps
//! the branch), removed after, and swept at the next start if Tandem died first.

mod git;
mod merge;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use merge::{Change, Merged, Plan, merge_back};

use git::Git;

/// Why a worktree could not be made, merged or removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error(
        "isolation in a worktree needs the project to be a git repository, and {} is not in one",
        .0.display()
    )]
    NotARepo(PathBuf),
    #[error(
        "the repository's own config names a program git would run (`{0}`); Tandem does not \
         make worktrees there"
    )]
    Drivers(String),
    #[error("cannot run git (worktrees need it on PATH): {0}")]
    NoGit(std::io::Error),
    #[error("git {command} failed: {stderr}")]
    Git { command: String, stderr: String },
    #[error("worktree file error: {0}")]
    Io(std::io::Error),
}

/// Where a worktree stands, as kept beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeState {
    /// A child works in it.
    Active,
    /// Its merge conflicted: its branch is kept for the person (the folder is gone).
    Kept,
}

/// One child's worktree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Worktree {
    /// Its name: its folder's and its branch's.
    pub name: String,
    /// The child session it belongs to, once it has one.
    #[serde(default)]
    pub child: Option<String>,
    /// The top of the caller's repository.
    pub repo: PathBuf,
    /// The worktree's folder (under Tandem's data dir).
    pub path: PathBuf,
    /// The caller's folder relative to the repository's top: the child works in the same
    /// place inside its worktree.
    pub subdir: PathBuf,
    pub branch: String,
    /// The commit holding the caller's state when the child started: the merge's base.
    pub base: String,
    pub state: WorktreeState,
    /// The Tandem process that made it: a sweep leaves a live one's alone.
    #[serde(default)]
    pub pid: u32,
}

impl Worktree {
    /// The folder the child works in.
    pub fn cwd(&self) -> PathBuf {
        match self.subdir.as_os_str().is_empty() {
            true => self.path.clone(),
            false => self.path.join(&self.subdir),
        }
    }

    fn record(&self) -> PathBuf {
        self.path.with_extension("json")
    }

    /// Records the child session that works in it (its deletion removes the worktree).
    pub fn attach(&mut self, child: &str) -> Result<(), WorktreeError> {
        self.child = Some(child.to_owned());
        self.keep()
    }

    fn keep(&self) -> Result<(), WorktreeError> {
        let text = serde_json::to_vec_pretty(self).map_err(|e| WorktreeError::Io(e.into()))?;
        std::fs::write(self.record(), text).map_err(WorktreeError::Io)
    }
}

/// The start of a scratch index's name (then the pid of the Tandem that made it).
const SCRATCH: &str = ".index-";

/// Where worktrees live.
fn home() -> PathBuf {
    crate::paths::data_dir().join("worktrees")
}

/// Makes the worktree `name` from the state of `cwd`'s repository now, on branch
/// `tandem/<name>`.
pub async fn create(cwd: &Path, name: &str) -> Result<Worktree, WorktreeError> {
    let top = git::top_of(cwd).await?;
    git::refuse_drivers(&top).await?;
    let real_cwd = std::fs::canonicalize(cwd).map_err(WorktreeError::Io)?;
    let real_top = std::fs::canonicalize(&top).map_err(WorktreeError::Io)?;
    let subdir = real_cwd
        .strip_prefix(&real_top)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    std::fs::create_dir_all(home()).map_err(WorktreeError::Io)?;
    let base = merge::snapshot(&top, None, &format!("tandem: {name} starts here")).await?;
    let worktree = Worktree {
        name: name.to_owned(),
        child: None,
        repo: top.clone(),
        path: home().join(name),
        subdir,
        branch: format!("tandem/{name}"),
        base: base.commit,
        state: WorktreeState::Active,
        pid: std::process::id(),
    };
    // Kept first: a crash from here on leaves a record the next start sweeps.
    worktree.keep()?;
    let path = worktree.path.to_string_lossy().into_owned();
    Git {
        dir: &top,
        index: None,
    }
    .run(&[
        "worktree",
        "add",
        "--quiet",
        "-b",
        &worktree.branch,
        &path,
        &worktree.base,
    ])
    .await?;
    Ok(worktree)
}

/// Removes the worktree's folder, and its branch unless `keep_branch`; its record goes too
/// unless the branch is kept.
pub async fn remove(worktree: &Worktree, keep_branch: bool) -> Result<(), WorktreeError> {
    let git = Git {
        dir: &worktree.repo,
        index: None,
    };
    let path = worktree.path.to_string_lossy().into_owned();
    if worktree.path.exists() {
        let removed = git.run(&["worktree", "remove", "--force", &path]).await;
        if removed.is_err() {
            let _ = std::fs::remove_dir_all(&worktree.path);
        }
    }
    let _ = git.run(&["worktree", "prune"]).await;
    if keep_branch {
        let kept = Worktree {
            state: WorktreeState::Kept,
            ..worktree.clone()
        };
        return kept.keep();
    }
    let _ = git.run(&["branch", "-D", &worktree.branch]).await;
    let _ = std::fs::remove_file(worktree.record());
    Ok(())
}

/// At start: removes every worktree a Tandem that died left active (with its branch); a
/// conflict's kept branch stays. What was swept, in words.
pub async fn sweep() -> Vec<String> {
    let mut swept = sweep_scratch();
    for worktree in recorded() {
        let abandoned =
            worktree.pid != std::process::id() && !crate::sys::process_exists(worktree.pid);
        if worktree.state == WorktreeState::Active
            && abandoned
            && remove(&worktree, false).await.is_ok()
        {
            swept.push(worktree.path.display().to_string());
        }
        // A kept branch the person merged and deleted needs its record no more.
        if worktree.state == WorktreeState::Kept && !branch_exists(&worktree).await {
            let _ = std::fs::remove_file(worktree.record());
        }
    }
    swept
}

/// Removes the worktrees (and branches) of `children` (their session ids): a deleted
/// session's.
pub async fn remove_for(children: &[String]) {
    for worktree in recorded() {
        if worktree
            .child
            .as_ref()
            .is_some_and(|c| children.contains(c))
            && let Err(error) = remove(&worktree, false).await
        {
            tracing::warn!(%error, "a deleted session's worktree could not be removed");
        }
    }
}

/// Removes the scratch indexes of Tandems no longer running.
fn sweep_scratch() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(home()) else {
        return Vec::new();
    };
    let mut swept = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(SCRATCH)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id()
            && !crate::sys::process_exists(pid)
            && std::fs::remove_file(entry.path()).is_ok()
        {
            swept.push(entry.path().display().to_string());
        }
    }
    swept
}

async fn branch_exists(worktree: &Worktree) -> bool {
    let git = Git {
        dir: &worktree.repo,
        index: None,
    };
    let name = format!("refs/heads/{}", worktree.branch);
    matches!(
        git.status(&["rev-parse", "--verify", "-q", &name], None)
            .await,
        Ok((0, _, _))
    )
}

/// Every worktree recorded.
fn recorded() -> Vec<Worktree> {
    let Ok(entries) = std::fs::read_dir(home()) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .filter_map(|path| serde_json::from_slice(&std::fs::read(path).ok()?).ok())
        .collect()
}
