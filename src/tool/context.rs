//! What a tool may reach while it runs: its session's ids and cwd, a cancel signal, the ports
//! (permission gate, client, todos, subagents) and live progress; and how a path the model
//! names is resolved against the project, asking `external_directory` for one outside it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ToolError;
use super::ports::{ClientPort, PermissionCheck, PermissionGate, SubagentPort, TodoPort};
use crate::id::{MessageId, SessionId};
use crate::message::{Location, ToolKind};
pub use crate::paths::{relative_to, resolve_in};

/// Live progress of a call, shown by the editor as it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolProgress {
    /// The call's checks are done and it runs now (the editor shows it in progress). Until
    /// then it waits, perhaps on the person's answer, and stays pending.
    Started,
    /// New output (only what is new).
    Output(String),
    /// The call's output lives in the editor's terminal with this id.
    Terminal(String),
}

/// Everything a running tool may use.
#[derive(Clone)]
pub struct ToolContext {
    pub session_id: SessionId,
    pub message_id: MessageId,
    pub call_id: String,
    pub tool: String,
    pub kind: ToolKind,
    /// The call's input as the model sent it.
    pub input: Value,
    pub cwd: PathBuf,
    pub cancel: CancellationToken,
    pub client: Arc<dyn ClientPort>,
    pub permissions: Arc<dyn PermissionGate>,
    pub todos: Arc<dyn TodoPort>,
    pub subagents: Arc<dyn SubagentPort>,
    pub progress: Arc<dyn Fn(ToolProgress) + Send + Sync>,
}

impl ToolContext {
    /// `path` made absolute against the session's cwd, with `.` and `..` resolved lexically.
    pub fn resolve(&self, path: &str) -> PathBuf {
        resolve_in(&self.cwd, path)
    }

    /// `path` relative to the project when inside it, else absolute: what titles show.
    pub fn relative(&self, path: &Path) -> String {
        relative_to(&self.cwd, path)
    }

    /// Asks the permission gate; an error is the message the model reads.
    pub async fn ask(&self, check: PermissionCheck) -> Result<(), ToolError> {
        self.permissions.check(self, check).await
    }

    /// Says the call's checks are done and it runs now; call it after the last `ask`.
    pub fn started(&self) {
        (self.progress)(ToolProgress::Started);
    }

    /// Reports new output of the running call.
    pub fn output(&self, delta: String) {
        (self.progress)(ToolProgress::Output(delta));
    }

    /// Resolves `path` and, when it lies outside the project (after following symlinks),
    /// asks `external_directory` for its directory first.
    pub async fn path_in_reach(&self, path: &str) -> Result<PathBuf, ToolError> {
        let resolved = self.resolve(path);
        let real = real_path(&resolved);
        let root = std::fs::canonicalize(&self.cwd).unwrap_or_else(|_| self.cwd.clone());
        if !real.starts_with(&root) {
            let dir = if real.is_dir() {
                real.clone()
            } else {
                real.parent()
                    .map(Path::to_owned)
                    .unwrap_or_else(|| real.clone())
            };
            let pattern = format!("{}/*", dir.display());
            self.ask(PermissionCheck {
                permission: "external_directory".into(),
                patterns: vec![pattern.clone()],
                always: vec![pattern],
                title: format!("Access {} (outside the project)", dir.display()),
                locations: vec![Location::file(real.clone())],
                diffs: vec![],
            })
            .await?;
        }
        Ok(resolved)
    }
}

/// The path with symlinks resolved as far as it exists (a new file's parent, say).
fn real_path(path: &Path) -> PathBuf {
    let mut existing = path.to_owned();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = parent.to_owned();
            }
            _ => return path.to_owned(),
        }
    }
    let mut real = std::fs::canonicalize(&existing).unwrap_or(existing);
    for name in rest.into_iter().rev() {
        real.push(name);
    }
    real
}
