//! The session core: the manager that creates, opens, lists and closes sessions, and one
//! actor per open session that runs its prompt turns. Publishes events; never names ACP.

mod actor;
mod command;
mod history;
mod permission;
mod settings;
mod setup;
mod step;
mod subagent;
mod todos;
mod turn;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use crate::bus::Bus;
use crate::config::{self, ConfigError};
use crate::id::{SessionId, now_ms};
use crate::message::{Message, PartBody, SessionInfo};
use crate::provider::ProviderError;
use crate::store::{SessionPage, Store, StoreError};
use crate::todo::Todo;
use crate::tool::{ClientPort, Registry};

use actor::SessionHandle;
pub use settings::SessionView;

/// How many sessions one `list` page holds.
pub const LIST_PAGE_SIZE: usize = 100;

/// Why a prompt turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    MaxTurnRequests,
    Refusal,
    Cancelled,
}

/// What went wrong, in words the person can act on.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("session {0} not found")]
    NotFound(SessionId),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error("the working directory {0} is not an absolute path")]
    RelativeCwd(PathBuf),
    #[error("session {0} was closed")]
    Closed(SessionId),
    #[error("there is no mode `{name}`; the modes are: {}", available.join(", "))]
    UnknownMode {
        name: String,
        available: Vec<String>,
    },
    #[error("there is no model `{name}`; the configured models are: {}", available.join(", "))]
    UnknownModel {
        name: String,
        available: Vec<String>,
    },
}

/// Creates and runs sessions. Cheap to share; all state behind it is per session.
pub struct SessionManager {
    store: Arc<Store>,
    bus: Arc<Bus>,
    tools: Registry,
    open: Mutex<HashMap<SessionId, SessionHandle>>,
    /// Itself, for the sessions' subagent runners.
    me: Weak<SessionManager>,
}

impl SessionManager {
    pub fn new(store: Arc<Store>, bus: Arc<Bus>) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            store,
            bus,
            tools: Registry::builtin(),
            open: Mutex::new(HashMap::new()),
            me: me.clone(),
        })
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn bus(&self) -> &Arc<Bus> {
        &self.bus
    }

    fn open_sessions(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, SessionHandle>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Creates a session in `cwd` (optionally the child of `parent`) and opens it.
    pub fn create(
        &self,
        cwd: &Path,
        parent: Option<SessionId>,
    ) -> Result<SessionInfo, SessionError> {
        self.create_titled(cwd, parent, None)
    }

    fn create_titled(
        &self,
        cwd: &Path,
        parent: Option<SessionId>,
        title: Option<&str>,
    ) -> Result<SessionInfo, SessionError> {
        if !cwd.is_absolute() {
            return Err(SessionError::RelativeCwd(cwd.to_owned()));
        }
        let config = Arc::new(config::load(cwd)?);
        let now = now_ms();
        let info = SessionInfo {
            id: SessionId::new(),
            parent_id: parent,
            cwd: cwd.to_owned(),
            title: title
                .map(str::to_owned)
                .unwrap_or_else(|| default_title(now)),
            created_at: now,
            updated_at: now,
        };
        self.store.create_session(&info)?;
        let handle = actor::spawn(self, info.clone(), Vec::new(), config);
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
        self.create_titled(cwd, Some(parent.clone()), Some(title))
    }

    /// The sessions `parent` delegated to, oldest first.
    pub fn children(&self, parent: &SessionId) -> Result<Vec<SessionInfo>, SessionError> {
        if self.store.get_session(parent)?.is_none() {
            return Err(SessionError::NotFound(parent.clone()));
        }
        Ok(self.store.children(parent)?)
    }

    /// Opens a stored session (if not open yet) and returns it with its history.
    /// `cwd` replaces the stored working directory when given (the editor's view wins).
    pub fn open(&self, id: &SessionId) -> Result<(SessionInfo, Vec<Message>), SessionError> {
        let info = self
            .store
            .get_session(id)?
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        let messages = self.store.load_messages(id)?;
        if !self.open_sessions().contains_key(id) {
            let config = Arc::new(config::load(&info.cwd)?);
            let handle = actor::spawn(self, info.clone(), messages.clone(), config);
            self.open_sessions().entry(id.clone()).or_insert(handle);
        }
        Ok((info, messages))
    }

    /// Runs one prompt turn; resolves when the turn ends.
    pub async fn prompt(
        &self,
        id: &SessionId,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
    ) -> Result<StopReason, SessionError> {
        let handle = self
            .open_sessions()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        handle.prompt(content, port).await
    }

    /// The open session's final answer: its last assistant text, after its queued turns.
    pub async fn last_answer(&self, id: &SessionId) -> Result<String, SessionError> {
        self.handle(id)?.last_answer().await
    }

    /// Chooses the model (`provider/model`) for the session's next turns, unchecked.
    pub fn set_model(&self, id: &SessionId, model: String) -> Result<(), SessionError> {
        self.handle(id)?.settings.set_model(&model, false)
    }

    fn handle(&self, id: &SessionId) -> Result<SessionHandle, SessionError> {
        self.open_sessions()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    /// The session's mode and model, and the choices for each.
    pub fn view(&self, id: &SessionId) -> Result<SessionView, SessionError> {
        Ok(self.handle(id)?.settings.view())
    }

    /// Switches the session to the primary agent `mode` for its next turns.
    pub fn set_mode(&self, id: &SessionId, mode: &str) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        settings.set_agent(mode)?;
        Ok(settings.view())
    }

    /// Chooses one of the configured models for the session's next turns.
    pub fn choose_model(&self, id: &SessionId, model: &str) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        settings.set_model(model, true)?;
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
        match self.open_sessions().remove(id) {
            Some(handle) => {
                handle.cancel();
                Ok(())
            }
            None if self.store.get_session(id)?.is_some() => Ok(()),
            None => Err(SessionError::NotFound(id.clone())),
        }
    }

    /// The session's todo list (stored sessions need not be open).
    pub fn todos(&self, id: &SessionId) -> Result<Vec<Todo>, SessionError> {
        if self.store.get_session(id)?.is_none() {
            return Err(SessionError::NotFound(id.clone()));
        }
        Ok(self.store.todos(id)?)
    }

    pub fn is_open(&self, id: &SessionId) -> bool {
        self.open_sessions().contains_key(id)
    }

    pub fn list(
        &self,
        cwd: Option<&Path>,
        cursor: Option<&str>,
    ) -> Result<SessionPage, SessionError> {
        Ok(self.store.list_sessions(cwd, cursor, LIST_PAGE_SIZE)?)
    }
}

fn default_title(now: i64) -> String {
    format!("New session - {}", crate::id::iso8601(now))
}

fn is_default_title(title: &str) -> bool {
    title.starts_with("New session - ")
}

/// A title from the first prompt: its first non-empty line, at most 50 characters.
fn title_from_prompt(content: &[PartBody]) -> Option<String> {
    let text = content.iter().find_map(|part| match part {
        PartBody::Text {
            text,
            synthetic: false,
        } => text.lines().map(str::trim).find(|l| !l.is_empty()),
        _ => None,
    })?;
    let mut title: String = text.chars().take(50).collect();
    if text.chars().count() > 50 {
        title = title.trim_end().to_owned();
        title.push('…');
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_line() {
        let text = |t: &str| {
            vec![PartBody::Text {
                text: t.into(),
                synthetic: false,
            }]
        };
        assert_eq!(
            title_from_prompt(&text("\n  Fix the bug\nin main")).as_deref(),
            Some("Fix the bug")
        );
        let long = "a".repeat(60);
        assert_eq!(title_from_prompt(&text(&long)).unwrap().chars().count(), 51);
        assert_eq!(title_from_prompt(&text("   ")), None);
        assert!(is_default_title(&default_title(0)));
    }
}
