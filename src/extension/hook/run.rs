//! Running one hook: `sh -c` its command in the project, in the sandbox unless it opts out,
//! the event's JSON on stdin, bounded in time and in what it may print.

use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio_util::sync::CancellationToken;

use super::Hook;
use crate::process::groups::GroupGuard;
use crate::sandbox::Policy;

/// The most of each stream read; a hook printing more is stopped by its timeout.
const MAX_READ: u64 = 1 << 20;

/// How a hook's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    Exited(i32),
    /// Killed by a signal (it crashed, or was killed).
    Signalled,
    TimedOut,
    Cancelled,
    /// It could not start; why.
    NotStarted(String),
}

/// What a hook did: how it ended and what it printed (cut as tool output is).
#[derive(Debug, Clone)]
pub struct HookRun {
    pub ran: Ran,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `hook` with `input` on stdin in `cwd`, confined by `sandbox` when the hook is
/// sandboxed; ends with the turn's `cancel`.
pub async fn run(
    hook: &Hook,
    input: &serde_json::Value,
    cwd: &Path,
    sandbox: &Policy,
    cancel: &CancellationToken,
) -> HookRun {
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(&hook.command)
        .env("TANDEM_PROJECT_DIR", cwd)
        .env("CLAUDE_PROJECT_DIR", cwd)
        .envs(hook.env.iter().map(|(k, v)| (k, v)));
    let sandbox = hook.sandboxed.then_some(sandbox);
    let started = crate::process::program::start(command, cwd, Stdio::piped(), sandbox);
    let mut child = match started {
        Ok(child) => child,
        Err(why) => return ended(Ran::NotStarted(why)),
    };
    let mut group = GroupGuard::new(child.id().map(|p| p as i32));
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let payload = input.to_string();
    let work = async {
        let feed = async {
            if let Some(mut stdin) = stdin {
                // A hook that does not read its input is not an error.
                let _ = stdin.write_all(payload.as_bytes()).await;
            }
        };
        let (_, out, err, status) =
            tokio::join!(feed, read_all(stdout), read_all(stderr), child.wait());
        (out, err, status)
    };
    let outcome = tokio::select! {
        done = tokio::time::timeout(hook.timeout, work) => done.ok(),
        () = cancel.cancelled() => {
            group.kill();
            return ended(Ran::Cancelled);
        }
    };
    group.kill();
    let Some((stdout, stderr, status)) = outcome else {
        return ended(Ran::TimedOut);
    };
    let ran = match status {
        Ok(status) => status.code().map_or(Ran::Signalled, Ran::Exited),
        Err(e) => Ran::NotStarted(e.to_string()),
    };
    HookRun {
        ran,
        stdout: cut(&stdout),
        stderr: cut(&stderr),
    }
}

fn ended(ran: Ran) -> HookRun {
    HookRun {
        ran,
        stdout: String::new(),
        stderr: String::new(),
    }
}

async fn read_all(stream: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(stream) = stream {
        let _ = stream.take(MAX_READ).read_to_end(&mut bytes).await;
    }
    bytes
}

/// A stream's text, cut as a tool's output is (head and tail kept).
fn cut(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    crate::tool::truncate::truncate(&text, None, "hook").0
}
