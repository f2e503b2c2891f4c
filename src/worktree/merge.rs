//! A work tree's state as a commit (a temporary index: the person's own is never touched), and
//! the three-way merge of a child's worktree into its caller's files with `git merge-tree`,
//! which reads and writes no work tree: only a clean result is applied, whole.

use std::path::{Path, PathBuf};

use super::git::Git;
use super::{Worktree, WorktreeError};

/// One merge at a time: each takes the caller's files as they are after the last.
static MERGING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A work tree's state, committed.
pub(super) struct Snap {
    pub commit: String,
    pub tree: String,
}

/// What merging a child's worktree back would do.
#[derive(Debug)]
pub enum Merged {
    /// The child changed nothing.
    Nothing,
    /// It merges cleanly: apply the plan (or drop it to write nothing).
    Clean(Plan),
    /// Nothing can be written: these files (relative to the repository) conflict; the child's
    /// work is on its branch.
    Conflict(Vec<String>),
}

/// A clean merge not yet written; holds the merge turn until applied or dropped.
#[derive(Debug)]
pub struct Plan {
    repo: PathBuf,
    from: String,
    to: String,
    /// The caller's files it changes.
    pub changed: Vec<PathBuf>,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

/// One changed file: its path, its text before and after (None: absent, or not text).
pub type Change = (PathBuf, Option<String>, Option<String>);

/// Commits the state of the work tree at `dir` (tracked, changed and untracked files, ignored
/// ones left out) on `parent` (else its HEAD, if any).
pub(super) async fn snapshot(
    dir: &Path,
    parent: Option<&str>,
    message: &str,
) -> Result<Snap, WorktreeError> {
    let git = Git { dir, index: None };
    let own_index = git
        .run(&["rev-parse", "--path-format=absolute", "--git-path", "index"])
        .await?;
    let head = match git
        .status(&["rev-parse", "--verify", "-q", "HEAD"], None)
        .await?
    {
        (0, head, _) => Some(head.trim().to_owned()),
        _ => None,
    };
    // Named by this process, so a sweep after a crash knows whose it was.
    let scratch = super::home().join(format!(
        "{}{}-{}",
        super::SCRATCH,
        std::process::id(),
        crate::id::ulid()
    ));
    // The person's index as a start: its stat data spares hashing unchanged files.
    let copied = std::fs::copy(&own_index, &scratch).is_ok();
    let with_scratch = Git {
        dir,
        index: Some(&scratch),
    };
    let result = async {
        if !copied && let Some(head) = &head {
            with_scratch.run(&["read-tree", head]).await?;
        }
        with_scratch.run(&["add", "-A", "--", "."]).await?;
        let tree = with_scratch.run(&["write-tree"]).await?;
        let mut args = vec!["commit-tree", tree.as_str(), "-m", message];
        if let Some(parent) = parent.or(head.as_deref()) {
            args.extend(["-p", parent]);
        }
        let commit = git.run(&args).await?;
        Ok(Snap { commit, tree })
    }
    .await;
    let _ = std::fs::remove_file(&scratch);
    result
}

/// Merges `worktree`'s work with its caller's files, three-way from where it started; a clean
/// result is written only when its plan is applied.
pub async fn merge_back(worktree: &Worktree) -> Result<Merged, WorktreeError> {
    let turn = MERGING.lock().await;
    let repo = Git {
        dir: &worktree.repo,
        index: None,
    };
    let message = format!("tandem: {}'s work", worktree.name);
    let theirs = snapshot(&worktree.path, Some(&worktree.base), &message).await?;
    let base_tree = repo
        .run(&["rev-parse", &format!("{}^{{tree}}", worktree.base)])
        .await?;
    if theirs.tree == base_tree {
        return Ok(Merged::Nothing);
    }
    // The branch holds the child's whole work, whatever happens next.
    let branch = format!("refs/heads/{}", worktree.branch);
    repo.run(&["update-ref", &branch, &theirs.commit]).await?;
    let ours = snapshot(
        &worktree.repo,
        Some(&worktree.base),
        "tandem: the caller's files",
    )
    .await?;
    let (code, out, err) = repo
        .status(
            &[
                "merge-tree",
                "--write-tree",
                "--name-only",
                "--no-messages",
                "--merge-base",
                &worktree.base,
                &ours.commit,
                &theirs.commit,
            ],
            None,
        )
        .await?;
    let mut lines = out.lines();
    let merged = lines.next().unwrap_or_default().trim().to_owned();
    match code {
        0 if merged == ours.tree => Ok(Merged::Nothing),
        0 => {
            let changed = changed(&repo, &worktree.repo, (&ours.tree, &merged)).await?;
            Ok(Merged::Clean(Plan {
                repo: worktree.repo.clone(),
                from: ours.tree,
                to: merged,
                changed,
                _turn: turn,
            }))
        }
        1 => {
            let mut files: Vec<String> = lines
                .take_while(|l| !l.is_empty())
                .map(str::to_owned)
                .collect();
            files.dedup();
            Ok(Merged::Conflict(files))
        }
        _ => Err(WorktreeError::Git {
            command: "merge-tree".into(),
            stderr: err.trim().to_owned(),
        }),
    }
}

const PLAIN: [&str; 4] = [
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-renames",
];

/// The files at `top` the change from tree `from` to tree `to` touches.
async fn changed(
    repo: &Git<'_>,
    top: &Path,
    (from, to): (&str, &str),
) -> Result<Vec<PathBuf>, WorktreeError> {
    let mut args = vec!["diff", "--name-only"];
    args.extend(PLAIN);
    args.extend([from, to]);
    Ok(repo
        .run(&args)
        .await?
        .lines()
        .map(|name| top.join(name))
        .collect())
}

impl Plan {
    /// Writes the merge into the caller's files, whole or not at all (`git apply` checks every
    /// hunk first); each changed file with its text before and after.
    pub async fn apply(self) -> Result<Vec<Change>, WorktreeError> {
        let repo = Git {
            dir: &self.repo,
            index: None,
        };
        let mut args = vec!["diff", "--binary", "--full-index"];
        args.extend(PLAIN);
        args.extend([self.from.as_str(), self.to.as_str()]);
        let (_, patch, _) = repo.status(&args, None).await?;
        let before: Vec<Option<String>> = self.changed.iter().map(|p| text_of(p)).collect();
        repo.run_with(
            &["apply", "--whitespace=nowarn", "-"],
            Some(patch.as_bytes()),
        )
        .await?;
        Ok(self
            .changed
            .iter()
            .zip(before)
            .map(|(path, before)| (path.clone(), before, text_of(path)))
            .collect())
    }
}

fn text_of(path: &Path) -> Option<String> {
    String::from_utf8(std::fs::read(path).ok()?).ok()
}
