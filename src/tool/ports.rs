//! The ports a running tool talks through, defined here so tools never import the layers that
//! answer them: the client (permission prompts, the editor's files and terminals), the todo
//! list, the project's language servers and formatters (`CodePort`, which `lsp` implements),
//! and what a permission check or a delegation asks. The session layer and the ACP edge
//! implement the rest. The context a call runs with, which holds every port, is declared
//! here too (its methods are in `context.rs`), so that the ports taking it need no other file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::question::{LinkReply, LinkRequest, QuestionReply, QuestionRequest};
use super::{PortError, ToolError};
use crate::id::{MessageId, SessionId};
use crate::message::{FileDiff, Location, ToolKind};
use crate::permission::{Action, Sight};
use crate::sandbox::Policy;
use crate::todo::Todo;

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
    /// The workspace's other roots: paths in them are as much the project's as the cwd's.
    pub extra_roots: Arc<[PathBuf]>,
    pub cancel: CancellationToken,
    pub client: Arc<dyn ClientPort>,
    pub permissions: Arc<dyn PermissionGate>,
    pub todos: Arc<dyn TodoPort>,
    pub subagents: Arc<dyn SubagentPort>,
    pub progress: Arc<dyn Fn(ToolProgress) + Send + Sync>,
    /// The sandbox the commands this call runs start in.
    pub sandbox: Arc<crate::sandbox::Policy>,
    /// What this session's model has seen of each file.
    pub files: Arc<crate::tool::files::ledger::FileLedger>,
    /// The session's commands in the background.
    pub jobs: Arc<crate::tool::shell::jobs::JobTable>,
    /// The project's language servers and formatters.
    pub code: Arc<dyn crate::tool::ports::CodePort>,
}

/// Decides permission checks: rules first, then the person. Implemented by the session layer.
pub trait PermissionGate: Send + Sync {
    fn check<'a>(
        &'a self,
        ctx: &'a ToolContext,
        check: PermissionCheck,
    ) -> BoxFuture<'a, Result<(), ToolError>>;

    /// What the rules say about `pattern` under `permission` now, without asking: how a
    /// search decides which files it may open or show.
    fn verdict(&self, permission: &str, pattern: &str) -> Action;

    /// The skill `skill` was loaded: for the rest of the turn only the tools in `allowed`
    /// (its `allowed-tools`) may be used, still under the rules.
    fn narrow(&self, _skill: &str, _allowed: &[String]) {}

    /// The loaded skills' lists as a layer of rules that bounds the subagents this turn
    /// starts; None when no skill narrowed it.
    fn narrowed_layer(&self) -> Option<Vec<crate::permission::Rule>> {
        None
    }
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

    /// What the background child `id` has done so far, or how it ended; waits at most `wait`
    /// for it to end first.
    fn progress<'a>(
        &'a self,
        id: &'a str,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        let _ = wait;
        Box::pin(async move { Err(no_background_child(id)) })
    }

    /// Stops the background child `id`; what the model is told.
    fn stop(&self, id: &str) -> Result<String, ToolError> {
        Err(no_background_child(id))
    }
}

/// The error for a background child this session does not have.
pub fn no_background_child(id: &str) -> ToolError {
    ToolError::failed(format!(
        "There is no background task {id} in this session. Start one with task and          run_in_background: true; /jobs lists them."
    ))
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
        Box::pin(async { Err(ToolError::failed("No subagents are available here.")) })
    }
}

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

    /// Whether `open_link` reaches the person (the editor takes links to open).
    fn shows_links(&self) -> bool {
        false
    }

    /// Asks the person to open a link (an MCP server's login); resolves with their answer.
    fn open_link(&self, request: LinkRequest) -> BoxFuture<'_, LinkReply> {
        let _ = request;
        Box::pin(async { LinkReply::Unavailable })
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
    /// Answer at once and let the child work while the caller goes on.
    pub background: bool,
    /// The child works in a git worktree of its own, merged back when it ends.
    pub worktree: bool,
}

/// What a subagent answered.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentOutcome {
    pub session_id: String,
    /// The child's last text.
    pub text: String,
    /// What the child's turn cost (its model's, or what an external agent reported).
    pub cost: Option<f64>,
    /// The child goes on in the background; `text` says so.
    pub background: bool,
    /// The caller's files its worktree's merge changed, whole before and after.
    pub diffs: Vec<crate::message::FileDiff>,
}

// The project's language servers and formatters, as the tools ask them: a file read warms
// its server, a changed file is formatted and checked, and the `lsp` tool's questions are
// answered.

/// What running a formatter on a changed file did.
#[derive(Debug, Clone, PartialEq)]
pub enum Formatting {
    /// No formatter applies to the file (or formatting is off).
    None,
    /// The formatter ran and left the file as it was.
    Unchanged { by: String },
    /// The formatter rewrote the file; `text` is what it now holds.
    Formatted { by: String, text: String },
    /// The formatter failed; the file keeps the tool's text.
    Failed { by: String, why: String },
}

/// One question to the language server (positions 1-based, as `read` numbers lines).
#[derive(Debug, Clone, PartialEq)]
pub struct Inquiry {
    pub operation: Operation,
    /// The file asked about (absolute); for a workspace search, any file of the language.
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    /// The symbol searched for (workspace symbols).
    pub query: String,
}

/// What the `lsp` tool can ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Definition,
    References,
    Hover,
    Implementation,
    DocumentSymbols,
    WorkspaceSymbols,
}

/// A place the server answered with (1-based line and column) and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    /// A symbol's name and kind, when the answer is a symbol.
    pub label: Option<String>,
}

/// The server's answer: places, or text (hover).
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Places(Vec<Place>),
    Text(String),
}

/// The language servers and formatters, seen from a tool.
pub trait CodePort: Send + Sync {
    /// The model read `path`: its language server (if any) starts and opens it, in the
    /// background; returns at once.
    fn opened(&self, path: &Path, text: &str);

    /// Runs the formatter that applies to `path` (which holds what the tool wrote), in
    /// `sandbox`.
    fn format<'a>(&'a self, path: &'a Path, sandbox: &'a Policy) -> BoxFuture<'a, Formatting>;

    /// The language server's errors after `path` came to hold `text`, as the block the model
    /// reads; None when the file is clean or no server applies.
    fn check<'a>(&'a self, path: &'a Path, text: &'a str) -> BoxFuture<'a, Option<String>>;

    /// Asks the server of `inquiry.path` a question; an error is the reason in words.
    fn inquire(&self, inquiry: Inquiry) -> BoxFuture<'_, Result<Answer, String>>;
}

/// No language servers or formatters (the headless runner's tests, unit tests).
pub struct NoCode;

impl CodePort for NoCode {
    fn opened(&self, _path: &Path, _text: &str) {}

    fn format<'a>(&'a self, _path: &'a Path, _sandbox: &'a Policy) -> BoxFuture<'a, Formatting> {
        Box::pin(async { Formatting::None })
    }

    fn check<'a>(&'a self, _path: &'a Path, _text: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async { None })
    }

    fn inquire(&self, _inquiry: Inquiry) -> BoxFuture<'_, Result<Answer, String>> {
        Box::pin(async { Err("No language server is available here.".to_owned()) })
    }
}
