//! What an external agent asks of Tandem while it works (files, terminals, permission), put
//! in Tandem's terms. The session layer answers it under the caller's rules and sandbox; an
//! error is the message the agent reads.

use std::path::PathBuf;

use futures::future::BoxFuture;

use super::events::RemoteToolCall;
use crate::tool::question::{Question, QuestionReply};
use crate::tool::{TerminalExit, TerminalOutput};

/// The kinds of answer an agent offers to a permission question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

/// A permission question of the agent: about `call` (as it stands), answered by one of
/// `options` (id, kind).
#[derive(Debug, Clone)]
pub struct PermissionAsk {
    pub call: RemoteToolCall,
    pub options: Vec<(String, OptionKind)>,
}

/// The answer: the option chosen, or none (the turn was cancelled, nothing fits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    Selected(String),
    Cancelled,
}

/// A command the agent wants run.
#[derive(Debug, Clone)]
pub struct TerminalRequest {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    pub output_limit: Option<u64>,
}

pub type Answer<'a, T> = BoxFuture<'a, Result<T, String>>;

/// Answers an external agent's requests during one of its turns.
pub trait RemoteHost: Send + Sync {
    fn read_text_file(
        &self,
        path: PathBuf,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Answer<'_, String>;
    fn write_text_file(&self, path: PathBuf, content: String) -> Answer<'_, ()>;
    fn request_permission(&self, ask: PermissionAsk) -> BoxFuture<'_, Choice>;
    /// Puts the agent's form (`elicitation/create`) to the person as questions.
    fn ask(&self, questions: Vec<Question>) -> BoxFuture<'_, QuestionReply>;
    fn create_terminal(&self, request: TerminalRequest) -> Answer<'_, String>;
    fn terminal_output(&self, id: String) -> Answer<'_, TerminalOutput>;
    fn wait_for_terminal_exit(&self, id: String) -> Answer<'_, TerminalExit>;
    fn kill_terminal(&self, id: String) -> Answer<'_, ()>;
    fn release_terminal(&self, id: String) -> Answer<'_, ()>;
}
