//! Runs the `git` CLI against Tandem's own object store for one project: a separate git dir
//! under the data dir, the project as its work tree, and none of the person's config or hooks.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::SnapshotError;

/// Settings every call runs with, whatever the person's git config says: no line-ending
/// rewriting, no fsmonitor daemons, real symlinks, no hooks, no automatic gc.
const SETTINGS: &[&str] = &[
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fsmonitor=false",
    "core.symlinks=true",
    "core.longpaths=true",
    "core.quotepath=false",
    "core.hooksPath=/dev/null",
    "advice.addEmbeddedRepo=false",
    "gc.auto=0",
    "maintenance.auto=false",
];

/// Environment variables that would point git at another repository or index.
pub(crate) const FOREIGN_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
];

/// How long a call waits in all for another process's `index.lock` to go away.
const LOCK_PATIENCE: Duration = Duration::from_secs(5);

/// One project's snapshot repository.
#[derive(Debug, Clone)]
pub(super) struct Git {
    pub git_dir: PathBuf,
    pub work_tree: PathBuf,
}

impl Git {
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("git");
        command
            .arg("--git-dir")
            .arg(&self.git_dir)
            .arg("--work-tree")
            .arg(&self.work_tree)
            .arg("--literal-pathspecs");
        for setting in SETTINGS {
            command.args(["-c", setting]);
        }
        command.args(args).current_dir(&self.work_tree);
        for name in FOREIGN_ENV {
            command.env_remove(name);
        }
        command
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_NAME", "tandem")
            .env("GIT_AUTHOR_EMAIL", "tandem@localhost")
            .env("GIT_COMMITTER_NAME", "tandem")
            .env("GIT_COMMITTER_EMAIL", "tandem@localhost")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }

    /// Runs `git <args>`, feeding `input` on stdin, and returns its stdout. A call that finds
    /// another process's `index.lock` waits for it and tries again.
    pub async fn run(&self, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, SnapshotError> {
        let started = std::time::Instant::now();
        let mut pause = Duration::from_millis(10);
        loop {
            match self.run_once(args, input).await {
                Err(SnapshotError::Git { stderr, .. })
                    if stderr.contains("index.lock") && started.elapsed() < LOCK_PATIENCE =>
                {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
                other => return other,
            }
        }
    }

    async fn run_once(
        &self,
        args: &[&str],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, SnapshotError> {
        let mut command = self.command(args);
        if input.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = command.spawn().map_err(SnapshotError::NoGit)?;
        if let Some(input) = input {
            let mut stdin = child.stdin.take().expect("stdin was piped");
            let input = input.to_vec();
            // Fed from its own task: a large answer must not block on a full stdout pipe.
            tokio::spawn(async move {
                let _ = stdin.write_all(&input).await;
            });
        }
        let output = child
            .wait_with_output()
            .await
            .map_err(SnapshotError::NoGit)?;
        if output.status.success() {
            Ok(output.stdout)
        } else {
            Err(SnapshotError::Git {
                command: args.first().copied().unwrap_or_default().to_owned(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
            })
        }
    }

    /// Creates the repository if it is missing and brings its exclude file in line with the
    /// project's own (`.git/info/exclude`, which a foreign git dir would not read).
    pub async fn prepare(&self) -> Result<(), SnapshotError> {
        if !self.git_dir.join("HEAD").exists() {
            std::fs::create_dir_all(&self.git_dir).map_err(SnapshotError::Io)?;
            self.run(&["init", "-q"], None).await?;
        }
        let theirs = std::fs::read(self.work_tree.join(".git/info/exclude")).unwrap_or_default();
        let ours_path = self.git_dir.join("info/exclude");
        if std::fs::read(&ours_path).unwrap_or_default() != theirs {
            std::fs::create_dir_all(self.git_dir.join("info")).map_err(SnapshotError::Io)?;
            std::fs::write(&ours_path, theirs).map_err(SnapshotError::Io)?;
        }
        Ok(())
    }
}

/// The snapshot repository of `work_tree` under `root`: `<name>-<hash of the path>`, so two
/// projects of the same name never share one.
pub(super) fn repository_for(root: &Path, work_tree: &Path) -> PathBuf {
    let hash = format!("{:016x}", fnv1a(work_tree.as_os_str().as_encoded_bytes()));
    root.join(crate::paths::folder_name(work_tree, &hash))
}

/// FNV-1a, 64 bits: stable across Rust versions and platforms, unlike `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_get_distinct_stable_repositories() {
        let root = Path::new("/data/snapshot");
        let a = repository_for(root, Path::new("/home/me/app"));
        let b = repository_for(root, Path::new("/work/app"));
        assert_ne!(a, b);
        assert_eq!(a, repository_for(root, Path::new("/home/me/app")));
        assert!(a.file_name().unwrap().to_str().unwrap().starts_with("app-"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    }
}
