//! The session manager: the type, the one actor per open session it keeps, its shutdown path,
//! and child sessions for delegation (`ChildSessions`). Its methods are grouped by purpose in
//! `lifecycle`, `turns` and `history`. Never names ACP.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use futures::future::BoxFuture;

use super::actor::SessionHandle;
use crate::agent::AgentInfo;
use crate::bus::Bus;
use crate::id::SessionId;
use crate::mcp::{McpServerSpec, McpSet};
use crate::message::{Message, PartBody};
use crate::permission::Rule;
use crate::session::core::children::ChildSessions;
use crate::session::core::state::Services;
use crate::session::error::{SessionError, StopReason};
use crate::store::Store;
use crate::tool::{ClientPort, Registry};

/// How many sessions one `list` page holds.
pub const LIST_PAGE_SIZE: usize = 100;

/// Creates and runs sessions. Cheap to share; all state behind it is per session.
pub struct SessionManager {
    pub(super) services: Services,
    pub(super) open: Mutex<HashMap<SessionId, SessionHandle>>,
    /// One trust question at a time: a second session in the same folder waits for the
    /// answer instead of asking again.
    pub(super) trust_asked: tokio::sync::Mutex<()>,
}

impl SessionManager {
    pub fn new(store: Arc<Store>, bus: Arc<Bus>) -> Arc<Self> {
        // Worktrees a Tandem that died left behind go now.
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(async {
                for swept in crate::worktree::sweep().await {
                    tracing::info!(%swept, "removed a worktree a stopped Tandem left");
                }
            });
        }
        Arc::new_cyclic(|me: &Weak<SessionManager>| {
            let children: Weak<dyn ChildSessions> = me.clone();
            Self {
                services: Services {
                    snapshots: Arc::new(crate::snapshot::Snapshots::new(
                        store.path().with_file_name("snapshot"),
                    )),
                    store,
                    bus,
                    tools: Registry::builtin(),
                    children,
                    lsp: Arc::default(),
                },
                open: Mutex::new(HashMap::new()),
                trust_asked: tokio::sync::Mutex::new(()),
            }
        })
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.services.store
    }

    pub fn bus(&self) -> &Arc<Bus> {
        &self.services.bus
    }

    pub(in crate::session) fn handle(&self, id: &SessionId) -> Result<SessionHandle, SessionError> {
        self.open_sessions()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    pub(super) fn open_sessions(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<SessionId, SessionHandle>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Lets the session's MCP servers start connecting: call it once the editor has the answer
    /// that opened the session (the first prompt releases them anyway).
    pub fn release_mcp(&self, id: &SessionId) {
        if let Ok(handle) = self.handle(id) {
            handle.mcp.release_soon();
        }
    }

    /// Shuts the language servers down politely (Tandem is exiting), waiting at most half a
    /// second; whatever is left is killed with its process group.
    pub async fn stop_language_servers(&self) {
        let limit = std::time::Duration::from_millis(500);
        self.services.lsp.shutdown(limit).await;
    }

    /// Runs every open session's `SessionEnd` hooks (Tandem is exiting), together, each
    /// bounded by its timeout.
    pub async fn end_sessions(&self) {
        let ending: Vec<_> = self
            .open_sessions()
            .values()
            .filter_map(|h| h.end_hooks.clone())
            .collect();
        futures::future::join_all(ending.iter().map(|hooks| hooks.at_end("exit"))).await;
    }

    /// Ends the processes that left their group (`setsid`, a double fork) once no open session
    /// is running anything: which session started one cannot be told, so while another
    /// works they wait (for its close, or Tandem's exit).
    pub(super) fn end_escapees_if_idle(&self) {
        let busy = self.open_sessions().values().any(|h| {
            !h.status.is_idle()
                || !h.jobs.running().is_empty()
                || !h.background.running().is_empty()
        });
        if !busy {
            tokio::task::spawn_blocking(crate::process::escapees::end_all);
        }
    }

    /// Tandem exits in good order (the editor closed the connection, `tandem run` ended): the
    /// sessions' `exit` hooks run, language servers stop, every session's MCP servers, jobs
    /// and escaped processes end, and the store is flushed. The one way out of every front end.
    pub async fn end(&self) -> Result<(), crate::store::StoreError> {
        self.end_sessions().await;
        self.stop_language_servers().await;
        self.shutdown();
        self.store().flush()
    }

    /// Tandem exits on a signal: no hooks; language servers get their half second, every
    /// process group Tandem started dies at once, and the store is flushed.
    pub async fn end_now(&self) -> Result<(), crate::store::StoreError> {
        self.stop_language_servers().await;
        crate::process::groups::kill_all();
        self.shutdown();
        self.store().flush()
    }

    /// Ends every open session's MCP servers (Tandem is exiting).
    pub fn shutdown(&self) {
        for handle in self.open_sessions().values() {
            handle.cancel();
            drop(handle.background.stop_all());
            handle.mcp.shutdown();
            handle.jobs.end_all();
        }
        crate::process::escapees::end_all();
    }
}

/// Records written before a call kept its kind get it from the tool, by name.
pub(super) fn fill_tool_kinds(messages: &mut [Message], tools: &Registry) {
    for part in messages.iter_mut().flat_map(|m| m.parts.iter_mut()) {
        if let PartBody::Tool(call) = &mut part.body
            && call.kind.is_none()
        {
            call.kind = tools.kind_of(&call.tool);
        }
    }
}

/// Where an opening session's MCP servers come from.
pub(super) enum Mcp {
    /// Connect these (the editor's) and the config's.
    Start(Vec<McpServerSpec>),
    /// Use a caller's.
    Shared(Arc<McpSet>),
}

impl ChildSessions for SessionManager {
    fn create_child(
        &self,
        cwd: &Path,
        parent: &SessionId,
        title: &str,
    ) -> Result<SessionId, SessionError> {
        Ok(self.create_child(cwd, parent, title)?.id)
    }

    fn open_child(&self, child: &SessionId) -> Result<(), SessionError> {
        self.open(child, None, Vec::new()).map(|_| ())
    }

    fn assign(
        &self,
        child: &SessionId,
        agent: AgentInfo,
        model: Option<String>,
        extra: Vec<Rule>,
        bounds: (
            Vec<Vec<Rule>>,
            crate::sandbox::Policy,
            crate::permission::approval::Approval,
        ),
    ) -> Result<(), SessionError> {
        self.handle(child)?
            .settings
            .delegate_to(agent, model, extra, bounds);
        Ok(())
    }

    fn prompt<'a>(
        &'a self,
        child: &'a SessionId,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
    ) -> BoxFuture<'a, Result<StopReason, SessionError>> {
        Box::pin(self.prompt(child, content, port))
    }

    fn last_answer<'a>(
        &'a self,
        child: &'a SessionId,
    ) -> BoxFuture<'a, Result<crate::session::context::history::Answer, SessionError>> {
        Box::pin(self.last_answer(child))
    }

    fn cancel(&self, child: &SessionId) {
        self.cancel(child);
    }

    fn end_jobs(&self, child: &SessionId) -> Vec<String> {
        let Ok(handle) = self.handle(child) else {
            return Vec::new();
        };
        let running = handle.jobs.running();
        handle.jobs.end_all();
        running
            .iter()
            .map(|job| format!("{} `{}`", job.id, job.command))
            .collect()
    }
}
