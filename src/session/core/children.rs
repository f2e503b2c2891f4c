//! The seam delegation runs child sessions through: create or open a child, give it its agent,
//! prompt it, read its answer, cancel it. The manager implements it, so the modules a turn uses
//! never import the manager or the actor.

use crate::permission::approval::Approval;
use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::agent::AgentInfo;
use crate::id::SessionId;
use crate::message::PartBody;
use crate::permission::Rule;
use crate::session::error::{SessionError, StopReason};
use crate::tool::ClientPort;

pub(in crate::session) trait ChildSessions: Send + Sync {
    /// Creates a child session of `parent` titled `title`, open and ready for a prompt.
    fn create_child(
        &self,
        cwd: &Path,
        parent: &SessionId,
        title: &str,
    ) -> Result<SessionId, SessionError>;
    /// Opens a stored child session (if not open yet).
    fn open_child(&self, child: &SessionId) -> Result<(), SessionError>;
    /// Makes `child` run `agent` (any mode) with `model`, the `extra` rules it adds to its
    /// agent's, and the bounds its callers set: the rules of every caller above it and the
    /// caller's sandbox, neither of which it goes beyond, and the caller's approval level.
    fn assign(
        &self,
        child: &SessionId,
        agent: AgentInfo,
        model: Option<String>,
        extra: Vec<Rule>,
        bounds: (Vec<Vec<Rule>>, crate::sandbox::Policy, Approval),
    ) -> Result<(), SessionError>;
    /// Runs one turn of `child`; its questions go to `port`.
    fn prompt<'a>(
        &'a self,
        child: &'a SessionId,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
    ) -> BoxFuture<'a, Result<StopReason, SessionError>>;
    /// The child's final answer and the cost of its last turn, after its queued turns.
    fn last_answer<'a>(
        &'a self,
        child: &'a SessionId,
    ) -> BoxFuture<'a, Result<crate::session::context::history::Answer, SessionError>>;
    /// Cancels the child's running and queued turns.
    fn cancel(&self, child: &SessionId);
    /// Ends the child's background jobs (its task is over); those that were still running.
    fn end_jobs(&self, child: &SessionId) -> Vec<String>;
}
