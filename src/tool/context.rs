//! What a tool may reach while it runs: its session's ids and cwd, a cancel signal, the
//! permission gate, live progress, and the client port (permission prompts, the editor's
//! files). Defined here so tools never import the session layer, which implements the ports.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ToolError;
use crate::id::{MessageId, SessionId};
use crate::message::Location;
use crate::todo::Todo;

/// A file change as the editor reviews it: the whole file before (None = new) and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    pub path: PathBuf,
    pub old_text: Option<String>,
    pub new_text: String,
}

/// What a tool needs allowed before it acts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PermissionCheck {
    /// The permission key: `read`, `edit`, `bash`, `external_directory`, `doom_loop` …
    pub permission: String,
    /// Each must be allowed: the commands, the relative paths, the url.
    pub patterns: Vec<String>,
    /// What an "always" answer records.
    pub always: Vec<String>,
    /// What the person reads when asked.
    pub title: String,
    pub locations: Vec<Location>,
    pub diffs: Vec<FileDiff>,
}

impl PermissionCheck {
    /// A check of `patterns` under `permission`; an "always" answer covers every input (`*`).
    pub fn new(permission: &str, patterns: Vec<String>, title: String) -> Self {
        Self {
            permission: permission.to_owned(),
            patterns,
            always: vec!["*".into()],
            title,
            ..Default::default()
        }
    }

    /// Adds a place the call touches.
    pub fn at(mut self, location: Location) -> Self {
        self.locations.push(location);
        self
    }
}

/// A question for the person driving the session.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    pub session_id: SessionId,
    pub call_id: String,
    pub tool: String,
    pub permission: String,
    pub title: String,
    pub input: Value,
    pub locations: Vec<Location>,
    pub diffs: Vec<FileDiff>,
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
pub trait ClientPort: TerminalPort + Send + Sync {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision>;

    /// Whether `read_text_file` reaches the editor (which sees unsaved buffers).
    fn can_read_files(&self) -> bool {
        false
    }
    /// Whether the client follows child sessions itself (ACP's subagents capability), so a
    /// child's questions may name the child's own session.
    fn knows_subagents(&self) -> bool {
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
            if let Some(parent) = path.parent() {
                tokio::fs::create_dir_all(parent)
                    .await
                    .map_err(|e| PortError(format!("cannot create {}: {e}", parent.display())))?;
            }
            tokio::fs::write(path, content)
                .await
                .map_err(|e| PortError(format!("cannot write {}: {e}", path.display())))
        })
    }
}

/// How a command ended in the editor's terminal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TerminalExit {
    pub code: Option<i32>,
    pub signal: Option<String>,
}

/// What the editor's terminal holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TerminalOutput {
    pub output: String,
    pub truncated: bool,
    pub exit: Option<TerminalExit>,
}

/// Running commands in the editor's terminal (ACP `terminal/*`), when it offers them.
pub trait TerminalPort: Send + Sync {
    fn can_run_terminals(&self) -> bool {
        false
    }
    /// Starts `command args…` in `cwd`; returns the terminal id at once.
    fn create_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        command: &'a str,
        args: Vec<String>,
        cwd: &'a Path,
        output_limit: u64,
    ) -> BoxFuture<'a, Result<String, PortError>> {
        let _ = (session_id, command, args, cwd, output_limit);
        Box::pin(async { Err(PortError("the client runs no terminals".into())) })
    }
    fn terminal_output<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalOutput, PortError>> {
        let _ = (session_id, id);
        Box::pin(async { Err(PortError("the client runs no terminals".into())) })
    }
    fn wait_for_terminal_exit<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalExit, PortError>> {
        let _ = (session_id, id);
        Box::pin(async { Err(PortError("the client runs no terminals".into())) })
    }
    fn kill_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        let _ = (session_id, id);
        Box::pin(async { Ok(()) })
    }
    /// Frees the terminal (killing its command if still running). Every terminal is released.
    fn release_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        let _ = (session_id, id);
        Box::pin(async { Ok(()) })
    }
}

/// A port with no person behind it: every question is answered with `decision`.
pub struct UnattendedPort {
    pub decision: PermissionDecision,
}

impl TerminalPort for UnattendedPort {}

impl ClientPort for UnattendedPort {
    fn request_permission(&self, _request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        let decision = self.decision;
        Box::pin(async move { decision })
    }
}

/// Decides permission checks: rules first, then the person. Implemented by the session layer.
pub trait PermissionGate: Send + Sync {
    fn check<'a>(
        &'a self,
        ctx: &'a ToolContext,
        check: PermissionCheck,
    ) -> BoxFuture<'a, Result<(), ToolError>>;
}

/// A session's todo list, kept by the session layer (stored, and announced to every client).
pub trait TodoPort: Send + Sync {
    fn todos(&self, session_id: &SessionId) -> Result<Vec<Todo>, ToolError>;
    /// Replaces the list and announces it.
    fn set_todos(&self, session_id: &SessionId, todos: Vec<Todo>) -> Result<(), ToolError>;
}

/// A delegation asked for by the `task` tool.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentCall {
    pub description: String,
    pub prompt: String,
    pub agent: String,
    /// Resume this child session instead of starting a new one.
    pub task_id: Option<String>,
}

/// What a subagent answered.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentOutcome {
    pub session_id: String,
    /// The child's last text.
    pub text: String,
}

/// Running subagents in child sessions, implemented by the session layer.
pub trait SubagentPort: Send + Sync {
    /// `(name, description)` of the subagents this caller may use, sorted by name.
    fn available(&self) -> Vec<(String, String)>;
    fn run<'a>(
        &'a self,
        ctx: &'a ToolContext,
        call: SubagentCall,
    ) -> BoxFuture<'a, Result<SubagentOutcome, ToolError>>;
}

/// A session with no subagents (the headless runner's children, tests).
pub struct NoSubagents;

impl SubagentPort for NoSubagents {
    fn available(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    fn run<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _call: SubagentCall,
    ) -> BoxFuture<'a, Result<SubagentOutcome, ToolError>> {
        Box::pin(async { Err(ToolError("No subagents are available here.".into())) })
    }
}

/// Live progress of a running call, shown by the editor as it happens.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolProgress {
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

/// `path` against `base`, with `.` and `..` resolved lexically.
pub fn resolve_in(base: &Path, path: &str) -> PathBuf {
    let joined = base.join(path);
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

/// `path` relative to `base` when inside it, else as given.
pub fn relative_to(base: &Path, path: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
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
