//! Runs `git` in the person's repository for worktrees: none of the system's or person's
//! global config, no hooks, no fsmonitor, no prompts; a repository whose own config names
//! programs git would run on our calls (filter or merge drivers) is refused before any call.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Command;

use super::WorktreeError;

/// Settings every call runs with, whatever the repository says.
const SETTINGS: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.autocrlf=false",
    "core.symlinks=true",
    "core.quotepath=false",
    "core.untrackedCache=false",
    "advice.addEmbeddedRepo=false",
    "gc.auto=0",
    "maintenance.auto=false",
];

/// One git call, run in `dir`.
pub(super) struct Git<'a> {
    pub dir: &'a Path,
    /// A temporary index in place of the work tree's own.
    pub index: Option<&'a Path>,
}

impl Git<'_> {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        for setting in SETTINGS {
            command.args(["-c", setting]);
        }
        command.args(args).current_dir(self.dir);
        for name in crate::snapshot::FOREIGN_ENV {
            command.env_remove(name);
        }
        if let Some(index) = self.index {
            command.env("GIT_INDEX_FILE", index);
        }
        command
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_NAME", "tandem")
            .env("GIT_AUTHOR_EMAIL", "tandem@localhost")
            .env("GIT_COMMITTER_NAME", "tandem")
            .env("GIT_COMMITTER_EMAIL", "tandem@localhost")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// `git <args>` with `input` on stdin: its exit code and stdout.
    pub async fn status(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<(i32, String, String), WorktreeError> {
        let mut child = self.command(args).spawn().map_err(WorktreeError::NoGit)?;
        if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
            use tokio::io::AsyncWriteExt;
            stdin.write_all(input).await.map_err(WorktreeError::Io)?;
        }
        let output = child.wait_with_output().await.map_err(WorktreeError::Io)?;
        Ok((
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ))
    }

    /// `git <args>`, which must succeed: its stdout, trimmed.
    pub async fn run(&self, args: &[&str]) -> Result<String, WorktreeError> {
        self.run_with(args, None).await
    }

    pub async fn run_with(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<String, WorktreeError> {
        match self.status(args, input).await? {
            (0, stdout, _) => Ok(stdout.trim().to_owned()),
            (_, _, stderr) => Err(WorktreeError::Git {
                command: args.first().copied().unwrap_or_default().to_owned(),
                stderr: stderr.trim().to_owned(),
            }),
        }
    }
}

/// The top of the repository `dir` lies in, or why there is none.
pub(super) async fn top_of(dir: &Path) -> Result<PathBuf, WorktreeError> {
    let git = Git { dir, index: None };
    match git.status(&["rev-parse", "--show-toplevel"], None).await? {
        (0, top, _) if !top.trim().is_empty() => Ok(PathBuf::from(top.trim())),
        _ => Err(WorktreeError::NotARepo(dir.to_owned())),
    }
}

/// Refuses a repository whose own config names programs our calls would run.
pub(super) async fn refuse_drivers(top: &Path) -> Result<(), WorktreeError> {
    let git = Git {
        dir: top,
        index: None,
    };
    let (_, found, _) = git
        .status(
            &[
                "config",
                "--local",
                "--name-only",
                "--get-regexp",
                r"^(filter|merge|diff)\..*\.(clean|smudge|process|driver|textconv|command)$",
            ],
            None,
        )
        .await?;
    match found.lines().next() {
        Some(key) => Err(WorktreeError::Drivers(key.to_owned())),
        None => Ok(()),
    }
}
