//! What a tool may reach while it runs: its session's ids and cwd, a cancel signal, the ports
//! (permission gate, client, todos, subagents) and live progress; and how a path the model
//! names is resolved against the project, asking `external_directory` for one outside it; and
//! the two ports that take a call's context (the permission gate, subagents).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ToolError;
use super::ports::{ClientPort, Need, PermissionCheck, SubagentCall, SubagentOutcome, TodoPort};
use super::reach::{directory_pattern, real_path};
use crate::id::{MessageId, SessionId};
use crate::message::{Location, ToolKind};
pub use crate::paths::{relative_to, resolve_in};
use crate::permission::Action;
use crate::permission::keys;

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
    /// The sandbox the commands this call runs start in.
    pub sandbox: Arc<crate::sandbox::Policy>,
    /// What this session's model has seen of each file.
    pub files: Arc<crate::tool::files::ledger::FileLedger>,
    /// The session's commands in the background.
    pub jobs: Arc<crate::tool::shell::jobs::JobTable>,
    /// The project's language servers and formatters.
    pub code: Arc<dyn crate::tool::ports::CodePort>,
}

impl ToolContext {
    /// `path` made absolute against the session's cwd, with `.` and `..` resolved lexically.
    pub fn resolve(&self, path: &str) -> PathBuf {
        resolve_in(&self.cwd, path)
    }

    /// `path` relative to the project when inside it, else absolute: what titles show and
    /// rules match. A real path is relative to the project's real location.
    pub fn relative(&self, path: &Path) -> String {
        if let Ok(root) = std::fs::canonicalize(&self.cwd)
            && root != self.cwd
            && path.starts_with(&root)
        {
            return relative_to(&root, path);
        }
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

    /// The path a tool will really touch for `path`: made absolute, `.` and `..` applied,
    /// then every symlink on it followed (a dangling one too). When that lies outside the
    /// project, asks `external_directory` for its directory first. Tools read and write the
    /// returned path, so what was checked is what is touched.
    pub async fn path_in_reach(&self, path: &str) -> Result<PathBuf, ToolError> {
        let named = self.resolve(path);
        let real = real_path(&named).map_err(|e| ToolError::io("resolve", &named, e))?;
        let root = std::fs::canonicalize(&self.cwd).unwrap_or_else(|_| self.cwd.clone());
        if !real.starts_with(&root) {
            let pattern = directory_pattern(&real);
            let dir = pattern.trim_end_matches("/*").to_owned();
            self.ask(PermissionCheck {
                needs: vec![
                    Need::new(keys::EXTERNAL_DIRECTORY, vec![pattern.clone()])
                        .always(vec![pattern]),
                ],
                title: format!("Access {dir} (outside the project)"),
                locations: vec![Location::file(real.clone())],
                diffs: vec![],
            })
            .await?;
        }
        Ok(real)
    }

    /// Which files a search may open or show: those the read rules allow without asking
    /// (judged by their path in the project, as `read` judges them).
    pub fn readable(&self) -> impl Fn(&Path) -> bool + Send + Sync + 'static {
        let gate = self.permissions.clone();
        let root = std::fs::canonicalize(&self.cwd).unwrap_or_else(|_| self.cwd.clone());
        move |path: &Path| gate.verdict(keys::READ, &relative_to(&root, path)) == Action::Allow
    }

    /// The names a file answers to under read and edit rules: the one the model gave and
    /// the one it really is (a symlink to `.env` is `.env` too).
    pub fn rule_names(&self, given: &str, real: &Path) -> Vec<String> {
        let mut names = vec![self.relative(real)];
        let named = self.relative(&self.resolve(given));
        if !names.contains(&named) {
            names.push(named);
        }
        names
    }
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
