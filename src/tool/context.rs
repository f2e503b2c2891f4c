//! What a tool may reach while it runs: its session's ids and cwd, a cancel signal, and the
//! client port (permission prompts, the editor's files). Defined here so tools never import
//! the session layer; the session layer and the ACP edge implement the port.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::id::{MessageId, SessionId};

/// A question for the person driving the session.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    pub session_id: SessionId,
    pub call_id: String,
    /// The permission asked for (`bash`, `edit`, `external_directory`, `doom_loop` …).
    pub permission: String,
    /// What the person reads: the command, the path.
    pub title: String,
    pub input: Value,
    /// Files touched, with 1-based lines where known.
    pub locations: Vec<(PathBuf, Option<u32>)>,
    /// For edits: the whole file before (None = new file) and after.
    pub diff: Option<FileDiff>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileDiff {
    pub path: PathBuf,
    pub old_text: Option<String>,
    pub new_text: String,
}

/// The person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionDecision {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    /// The turn was cancelled, or the client could not ask.
    Cancelled,
}

impl PermissionDecision {
    pub fn allows(self) -> bool {
        matches!(self, Self::AllowOnce | Self::AllowAlways)
    }
}

/// A failed call to the client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct PortError(pub String);

/// Whoever drives the session: the editor over ACP, the headless runner, or a test.
pub trait ClientPort: Send + Sync {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision>;

    /// Whether `read_text_file` reaches the editor (which sees unsaved buffers).
    fn can_read_files(&self) -> bool {
        false
    }
    /// Whether `write_text_file` goes through the editor (which can review the change).
    fn can_write_files(&self) -> bool {
        false
    }
    fn read_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<String, PortError>> {
        let _ = session_id;
        Box::pin(async move {
            tokio::fs::read_to_string(path)
                .await
                .map_err(|e| PortError(format!("cannot read {}: {e}", path.display())))
        })
    }
    fn write_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        let _ = session_id;
        Box::pin(async move {
            tokio::fs::write(path, content)
                .await
                .map_err(|e| PortError(format!("cannot write {}: {e}", path.display())))
        })
    }
}

/// A port with no person behind it: every question is answered with `decision`.
pub struct UnattendedPort {
    pub decision: PermissionDecision,
}

impl ClientPort for UnattendedPort {
    fn request_permission(&self, _request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        let decision = self.decision;
        Box::pin(async move { decision })
    }
}

/// Everything a running tool may use.
#[derive(Clone)]
pub struct ToolContext {
    pub session_id: SessionId,
    pub message_id: MessageId,
    pub call_id: String,
    pub cwd: PathBuf,
    pub cancel: CancellationToken,
    pub client: Arc<dyn ClientPort>,
}

impl ToolContext {
    /// `path` made absolute against the session's cwd, with `.` and `..` resolved lexically.
    pub fn resolve(&self, path: &str) -> PathBuf {
        use std::path::Component;
        let joined = self.cwd.join(path);
        let mut resolved = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    resolved.pop();
                }
                other => resolved.push(other),
            }
        }
        resolved
    }
}
