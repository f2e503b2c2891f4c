//! The ports a running tool talks through, defined here so tools never import the session
//! layer: the client (permission prompts, the editor's files and terminals), the todo list,
//! and what a permission check or a delegation asks. The session layer and the ACP edge
//! implement them; the two ports that take a call's context live beside it (`context.rs`).

use std::path::Path;

use futures::future::BoxFuture;
use serde_json::Value;

use super::question::{QuestionReply, QuestionRequest};
use super::{PortError, ToolError};
use crate::id::SessionId;
use crate::message::{FileDiff, Location, ToolKind};
use crate::permission::Sight;
use crate::todo::Todo;

/// One permission a call needs: each of `patterns` allowed under `permission`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Need {
    /// The permission key: `read`, `edit`, `bash`, `external_directory`, `doom_loop` …
    pub permission: String,
    /// Each must be allowed: the commands, the relative paths, the url.
    pub patterns: Vec<String>,
    /// What an "always" answer records.
    pub always: Vec<String>,
    /// Whether part of what the call does could not be seen in `patterns`.
    pub sight: Sight,
}

impl Need {
    /// `patterns` under `permission`; an "always" answer covers every input (`*`).
    pub fn new(permission: impl Into<String>, patterns: Vec<String>) -> Self {
        Self {
            permission: permission.into(),
            patterns,
            always: vec!["*".into()],
            sight: Sight::Full,
        }
    }

    /// What an "always" answer records instead of `*`.
    pub fn always(mut self, always: Vec<String>) -> Self {
        self.always = always;
        self
    }

    /// How much of the call the patterns show.
    pub fn seen(mut self, sight: Sight) -> Self {
        self.sight = sight;
        self
    }
}

/// What a tool needs allowed before it acts: every need, asked about in one question.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PermissionCheck {
    pub needs: Vec<Need>,
    /// What the person reads when asked.
    pub title: String,
    pub locations: Vec<Location>,
    pub diffs: Vec<FileDiff>,
}

impl PermissionCheck {
    /// A check of `patterns` under `permission`; an "always" answer covers every input (`*`).
    pub fn new(permission: &str, patterns: Vec<String>, title: String) -> Self {
        Self {
            needs: vec![Need::new(permission, patterns)],
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

/// A question for the person driving the session, about one tool call of one session (the
/// session that made the call: a subagent's own, for a child's call).
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    pub session_id: SessionId,
    pub call_id: String,
    pub tool: String,
    pub kind: ToolKind,
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

/// Whoever drives the session: the editor over ACP, the headless runner, or a test.
pub trait ClientPort: TerminalPort + Send + Sync {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision>;

    /// Asks the person the `question` tool's questions; resolves with their reply.
    fn ask_questions(&self, request: QuestionRequest) -> BoxFuture<'_, QuestionReply> {
        let _ = request;
        Box::pin(async { QuestionReply::Unavailable("nobody is there to answer".into()) })
    }

    /// Whether `read_text_file` reaches the editor (which sees unsaved buffers). When it does
    /// not, tools read the disk themselves (`tool::file`); the port never falls back.
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
        let _ = (session_id, path);
        Box::pin(async { Err(PortError::Unsupported("file reading")) })
    }
    fn write_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        let _ = (session_id, path, content);
        Box::pin(async { Err(PortError::Unsupported("file writing")) })
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
        Box::pin(async { Err(PortError::Unsupported("terminals")) })
    }
    fn terminal_output<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalOutput, PortError>> {
        let _ = (session_id, id);
        Box::pin(async { Err(PortError::Unsupported("terminals")) })
    }
    fn wait_for_terminal_exit<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalExit, PortError>> {
        let _ = (session_id, id);
        Box::pin(async { Err(PortError::Unsupported("terminals")) })
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
    /// What the child's turn cost (its model's, or what an external agent reported).
    pub cost: Option<f64>,
}
