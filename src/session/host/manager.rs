//! The session manager: creates, opens, lists and closes sessions, keeps one actor per open
//! session, and runs child sessions for delegation (`ChildSessions`). Never names ACP.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use futures::future::BoxFuture;

use super::actor;
use super::actor::SessionHandle;
use crate::agent::AgentInfo;
use crate::bus::Bus;
use crate::config;
use crate::id::{SessionId, now_ms};
use crate::mcp::{McpServerSpec, McpSet};
use crate::message::{Message, PartBody, SessionInfo};
use crate::permission::Rule;
use crate::session::context::UsageReport;
use crate::session::core::children::ChildSessions;
use crate::session::core::state::Services;
use crate::session::error::{SessionError, StopReason};
use crate::session::settings::SessionView;
use crate::session::turn::title;
use crate::store::{SessionPage, Store};
use crate::todo::Todo;
use crate::tool::{ClientPort, Registry};

/// How many sessions one `list` page holds.
pub const LIST_PAGE_SIZE: usize = 100;

/// Creates and runs sessions. Cheap to share; all state behind it is per session.
pub struct SessionManager {
    services: Services,
    open: Mutex<HashMap<SessionId, SessionHandle>>,
    /// One trust question at a time: a second session in the same folder waits for the
    /// answer instead of asking again.
    pub(super) trust_asked: tokio::sync::Mutex<()>,
}

impl SessionManager {
    pub fn new(store: Arc<Store>, bus: Arc<Bus>) -> Arc<Self> {
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

    pub(in crate::session) fn snapshots(&self) -> &Arc<crate::snapshot::Snapshots> {
        &self.services.snapshots
    }

    /// The status of each session open in this process.
    pub(in crate::session) fn open_statuses(
        &self,
    ) -> Vec<(SessionId, crate::message::SessionStatus)> {
        self.open_sessions()
            .iter()
            .map(|(id, handle)| (id.clone(), handle.status.get()))
            .collect()
    }

    pub(super) fn open_sessions(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<SessionId, SessionHandle>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Creates a root session in `cwd` with the editor's MCP `servers` (and the config's), and
    /// opens it; the servers connect in the background.
    pub fn create(
        &self,
        cwd: &Path,
        servers: Vec<McpServerSpec>,
    ) -> Result<SessionInfo, SessionError> {
        self.create_titled(cwd, None, None, Mcp::Start(servers))
    }

    fn create_titled(
        &self,
        cwd: &Path,
        parent: Option<SessionId>,
        title: Option<&str>,
        mcp: Mcp,
    ) -> Result<SessionInfo, SessionError> {
        if !cwd.is_absolute() {
            return Err(SessionError::RelativeCwd(cwd.to_owned()));
        }
        let config = Arc::new(crate::trust::load(cwd)?);
        let now = now_ms();
        let info = SessionInfo {
            id: SessionId::new(),
            parent_id: parent,
            cwd: cwd.to_owned(),
            title: title
                .map(str::to_owned)
                .unwrap_or_else(|| title::default_title(now)),
            created_at: now,
            updated_at: now,
        };
        self.store().create_session(&info)?;
        let editor_servers = match &mcp {
            Mcp::Start(servers) => servers.clone(),
            Mcp::Shared(_) => Vec::new(),
        };
        let mcp = self.mcp_set(mcp, &config, cwd);
        let mut handle = actor::spawn(
            self.services.clone(),
            info.clone(),
            Vec::new(),
            config,
            mcp,
            None,
        );
        handle.editor_servers = editor_servers;
        self.open_sessions().insert(info.id.clone(), handle);
        Ok(info)
    }

    /// Creates a child session of `parent` titled `title`, and opens it.
    pub fn create_child(
        &self,
        cwd: &Path,
        parent: &SessionId,
        title: &str,
    ) -> Result<SessionInfo, SessionError> {
        // A subagent works with its caller's MCP servers.
        let servers = self.handle(parent).map(|h| h.mcp.clone()).ok();
        let mcp = servers.map_or(Mcp::Start(Vec::new()), Mcp::Shared);
        self.create_titled(cwd, Some(parent.clone()), Some(title), mcp)
    }

    /// The MCP servers of a session being opened.
    fn mcp_set(&self, mcp: Mcp, config: &config::LoadedConfig, cwd: &Path) -> Arc<McpSet> {
        match mcp {
            Mcp::Shared(set) => set,
            Mcp::Start(servers) => {
                let configured = crate::mcp::spec::from_config(
                    &config.config.mcp,
                    config.config.sandbox.as_ref(),
                );
                McpSet::start(crate::mcp::spec::merge(servers, configured), cwd)
            }
        }
    }

    /// The sessions `parent` delegated to, oldest first.
    pub fn children(&self, parent: &SessionId) -> Result<Vec<SessionInfo>, SessionError> {
        if self.store().get_session(parent)?.is_none() {
            return Err(SessionError::NotFound(parent.clone()));
        }
        Ok(self.store().children(parent)?)
    }

    /// Opens a stored session (if not open yet, with the editor's MCP `servers` and the
    /// config's) and returns it with its history.
    pub fn open(
        &self,
        id: &SessionId,
        servers: Vec<McpServerSpec>,
    ) -> Result<(SessionInfo, Vec<Message>), SessionError> {
        let info = self
            .store()
            .get_session(id)?
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        let mut messages = self.store().load_messages(id)?;
        fill_tool_kinds(&mut messages, &self.services.tools);
        if !self.open_sessions().contains_key(id) {
            super::recovery::recover(self.store(), id, &mut messages)?;
        }
        let revert = self.store().revert(id)?;
        let all = messages.clone();
        if let Some(revert) = &revert {
            // What a revert hides is neither replayed nor sent to the model.
            crate::session::undo::revert::split(&mut messages, revert);
        }
        if !self.open_sessions().contains_key(id) {
            let config = Arc::new(crate::trust::load(&info.cwd)?);
            // A reopened subagent works with its (open) caller's servers, as when it was made.
            let caller = info.parent_id.as_ref().and_then(|p| self.handle(p).ok());
            let editor_servers = servers.clone();
            let mcp = match caller {
                Some(caller) => Mcp::Shared(caller.mcp.clone()),
                None => Mcp::Start(servers),
            };
            let mcp = self.mcp_set(mcp, &config, &info.cwd);
            let mut handle = actor::spawn(
                self.services.clone(),
                info.clone(),
                all,
                config,
                mcp,
                revert,
            );
            handle.editor_servers = editor_servers;
            self.restore_choice(id, &handle)?;
            self.open_sessions().entry(id.clone()).or_insert(handle);
        }
        Ok((info, messages))
    }

    /// Puts a reopened session back in the mode and on the model the person chose. A mode
    /// that no longer exists leaves the default (and says so in the log).
    fn restore_choice(&self, id: &SessionId, handle: &SessionHandle) -> Result<(), SessionError> {
        let choice = self.store().session_choice(id)?;
        if let Some(agent) = choice.agent
            && let Err(error) = handle.settings.set_agent(&agent)
        {
            tracing::warn!(%error, session = %id, "the session's stored mode is gone");
        }
        if let Some(model) = choice.model {
            handle.settings.set_model(&model, false)?;
        }
        if let Some(variant) = choice.variant {
            handle.settings.set_variant(&variant, false)?;
        }
        Ok(())
    }

    /// Runs one prompt turn; resolves when the turn ends.
    pub async fn prompt(
        &self,
        id: &SessionId,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
    ) -> Result<StopReason, SessionError> {
        self.settle_trust(id, &port).await?;
        let handle = self
            .open_sessions()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        handle.prompt(content, port).await
    }

    /// The tokens the open session's model calls spent since it opened here.
    pub fn spent(&self, id: &SessionId) -> Result<crate::message::Usage, SessionError> {
        Ok(self.handle(id)?.status.spent())
    }

    /// The open session's final answer: its last assistant text, after its queued turns.
    pub(in crate::session) async fn last_answer(
        &self,
        id: &SessionId,
    ) -> Result<crate::session::context::history::Answer, SessionError> {
        self.handle(id)?.last_answer().await
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

    /// Ends every open session's MCP servers (Tandem is exiting).
    pub fn shutdown(&self) {
        for handle in self.open_sessions().values() {
            handle.cancel();
            handle.mcp.shutdown();
            handle.jobs.end_all();
        }
        crate::process::escapees::end_all();
    }

    /// Chooses the model (`provider/model`) for the session's next turns, unchecked.
    pub fn set_model(&self, id: &SessionId, model: String) -> Result<(), SessionError> {
        self.handle(id)?.settings.set_model(&model, false)?;
        Ok(self.store().set_session_model(id, &model)?)
    }

    pub(in crate::session) fn handle(&self, id: &SessionId) -> Result<SessionHandle, SessionError> {
        self.open_sessions()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    /// The usage meter of an open session whose history is `messages`.
    pub fn usage(
        &self,
        id: &SessionId,
        messages: &[Message],
    ) -> Result<Option<UsageReport>, SessionError> {
        let size = self.handle(id)?.settings.context_window();
        Ok(size.and_then(|size| crate::session::context::report(messages, size)))
    }

    /// The session's mode and model, and the choices for each.
    pub fn view(&self, id: &SessionId) -> Result<SessionView, SessionError> {
        let handle = self.handle(id)?;
        let mut view = handle.settings.view();
        view.commands
            .extend(crate::session::settings::prompt_commands(&handle.mcp));
        Ok(view)
    }

    /// Switches the session to the primary agent `mode` for its next turns.
    pub fn set_mode(&self, id: &SessionId, mode: &str) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        settings.set_agent(mode)?;
        self.store().set_session_agent(id, mode)?;
        Ok(settings.view())
    }

    /// Chooses the variant (how hard the model thinks; `default` for the model's own) for the
    /// session's next turns.
    pub fn choose_variant(
        &self,
        id: &SessionId,
        variant: &str,
    ) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        settings.set_variant(variant, true)?;
        let stored = (variant != crate::session::DEFAULT_VARIANT).then_some(variant);
        self.store().set_session_variant(id, stored)?;
        Ok(settings.view())
    }

    /// Chooses one of the configured models for the session's next turns.
    pub fn choose_model(&self, id: &SessionId, model: &str) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        settings.set_model(model, true)?;
        self.store().set_session_model(id, model)?;
        Ok(settings.view())
    }

    /// Cancels the running turn (and any queued ones) of a session; unknown ids are ignored.
    pub fn cancel(&self, id: &SessionId) {
        if let Some(handle) = self.open_sessions().get(id) {
            handle.cancel();
        }
    }

    /// Cancels the session's work and frees it; it stays in the store.
    pub fn close(&self, id: &SessionId) -> Result<(), SessionError> {
        let removed = self.open_sessions().remove(id);
        match removed {
            Some(handle) => {
                handle.cancel();
                handle.mcp.shutdown();
                handle.jobs.end_all();
                self.end_escapees_if_idle();
                if let Some(hooks) = handle.end_hooks.clone() {
                    tokio::spawn(async move { hooks.at_end("other").await });
                }
                Ok(())
            }
            None if self.store().get_session(id)?.is_some() => Ok(()),
            None => Err(SessionError::NotFound(id.clone())),
        }
    }

    /// The session's todo list (stored sessions need not be open).
    pub fn todos(&self, id: &SessionId) -> Result<Vec<Todo>, SessionError> {
        if self.store().get_session(id)?.is_none() {
            return Err(SessionError::NotFound(id.clone()));
        }
        Ok(self.store().todos(id)?)
    }

    pub fn is_open(&self, id: &SessionId) -> bool {
        self.open_sessions().contains_key(id)
    }

    pub fn list(
        &self,
        cwd: Option<&Path>,
        cursor: Option<&str>,
    ) -> Result<SessionPage, SessionError> {
        Ok(self.store().list_sessions(cwd, cursor, LIST_PAGE_SIZE)?)
    }
}

/// Records written before a call kept its kind get it from the tool, by name.
fn fill_tool_kinds(messages: &mut [Message], tools: &Registry) {
    for part in messages.iter_mut().flat_map(|m| m.parts.iter_mut()) {
        if let PartBody::Tool(call) = &mut part.body
            && call.kind.is_none()
        {
            call.kind = tools.kind_of(&call.tool);
        }
    }
}

/// Where an opening session's MCP servers come from.
enum Mcp {
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
        self.open(child, Vec::new()).map(|_| ())
    }

    fn assign(
        &self,
        child: &SessionId,
        agent: AgentInfo,
        model: Option<String>,
        extra: Vec<Rule>,
        bounds: (Vec<Vec<Rule>>, crate::sandbox::Policy),
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
