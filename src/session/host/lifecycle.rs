//! The session manager's lifecycle methods: creating (children too), opening, closing,
//! forking and deleting sessions, and the checks an open session must pass.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::actor;
use super::actor::SessionHandle;
use super::manager::fill_tool_kinds;
use super::manager::{Mcp, SessionManager};
use crate::config;
use crate::id::{MessageId, SessionId, now_ms};
use crate::mcp::{McpServerSpec, McpSet};
use crate::message::{ForkOrigin, Message, PartBody, SessionInfo, SessionStatus};
use crate::session::error::SessionError;
use crate::session::turn::title;

impl SessionManager {
    /// Creates a root session in `cwd`, with the workspace's other `roots` and the editor's
    /// MCP `servers` (and the config's), and opens it; the servers connect in the background.
    /// A root that cannot be one is refused before anything opens.
    pub fn create(
        &self,
        cwd: &Path,
        roots: &[PathBuf],
        servers: Vec<McpServerSpec>,
    ) -> Result<SessionInfo, SessionError> {
        if !cwd.is_absolute() {
            return Err(SessionError::RelativeCwd(cwd.to_owned()));
        }
        let roots = checked_roots(cwd, roots)?;
        self.create_titled((cwd, roots), None, None, Mcp::Start(servers))
    }

    pub(super) fn create_titled(
        &self,
        (cwd, roots): (&Path, Vec<PathBuf>),
        parent: Option<SessionId>,
        title: Option<&str>,
        mcp: Mcp,
    ) -> Result<SessionInfo, SessionError> {
        if !cwd.is_absolute() {
            return Err(SessionError::RelativeCwd(cwd.to_owned()));
        }
        let config = Arc::new(crate::trust::load_workspace(cwd, &roots)?);
        let now = now_ms();
        let info = SessionInfo {
            id: SessionId::new(),
            parent_id: parent,
            cwd: cwd.to_owned(),
            extra_roots: roots,
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
        if info.parent_id.is_none() {
            handle.warm();
        }
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
        // A subagent works with its caller's MCP servers, in its caller's workspace.
        let servers = self.handle(parent).map(|h| h.mcp.clone()).ok();
        let mcp = servers.map_or(Mcp::Start(Vec::new()), Mcp::Shared);
        let roots = self
            .store()
            .get_session(parent)?
            .map(|caller| caller.extra_roots)
            .unwrap_or_default();
        self.create_titled((cwd, roots), Some(parent.clone()), Some(title), mcp)
    }

    /// The MCP servers of a session being opened.
    pub(super) fn mcp_set(
        &self,
        mcp: Mcp,
        config: &config::LoadedConfig,
        cwd: &Path,
    ) -> Arc<McpSet> {
        match mcp {
            Mcp::Shared(set) => set,
            Mcp::Start(servers) => {
                let sandbox = config.config.sandbox.as_ref();
                let mut configured = crate::mcp::spec::from_config(&config.config.mcp, sandbox);
                configured.extend(crate::mcp::spec::from_plugins(&config.plugins, sandbox));
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
    /// config's) and returns it with its history. `roots`, when given, are exactly the other
    /// workspace roots it works in from now on (the editor sends them again on each load);
    /// otherwise it keeps those it had.
    pub fn open(
        &self,
        id: &SessionId,
        roots: Option<&[PathBuf]>,
        servers: Vec<McpServerSpec>,
    ) -> Result<(SessionInfo, Vec<Message>), SessionError> {
        let mut info = self
            .store()
            .get_session(id)?
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        if let Some(roots) = roots {
            let roots = checked_roots(&info.cwd, roots)?;
            if roots != info.extra_roots {
                self.store().set_session_roots(id, &roots)?;
                if let Ok(handle) = self.handle(id) {
                    handle.set_roots(roots.clone());
                }
                info.extra_roots = roots;
            }
        }
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
            let config = Arc::new(crate::trust::load_workspace(&info.cwd, &info.extra_roots)?);
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
            if info.parent_id.is_none() {
                handle.warm();
            }
            self.open_sessions().entry(id.clone()).or_insert(handle);
        }
        Ok((info, messages))
    }

    /// Puts a reopened session back in the mode and on the model the person chose. A mode
    /// that no longer exists leaves the default (and says so in the log).
    pub(super) fn restore_choice(
        &self,
        id: &SessionId,
        handle: &SessionHandle,
    ) -> Result<(), SessionError> {
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
        if let Some(approval) = choice
            .approval
            .as_deref()
            .and_then(crate::permission::approval::Approval::from_id)
        {
            handle.settings.set_approval(approval);
        }
        handle.settings.set_client_prompt(choice.client_prompt);
        Ok(())
    }

    /// Cancels the session's work and frees it; it stays in the store. Its subagents in the
    /// background are stopped: the answer is theirs to wait for until they have ended.
    pub fn close(
        &self,
        id: &SessionId,
    ) -> Result<crate::session::core::background::Stopping, SessionError> {
        let removed = self.open_sessions().remove(id);
        match removed {
            Some(handle) => {
                handle.cancel();
                let stopping = handle.background.stop_all();
                handle.mcp.shutdown();
                handle.jobs.end_all();
                self.end_escapees_if_idle();
                if let Some(hooks) = handle.end_hooks.clone() {
                    tokio::spawn(async move { hooks.at_end("other").await });
                }
                Ok(stopping)
            }
            None if self.store().get_session(id)?.is_some() => Ok(Default::default()),
            None => Err(SessionError::NotFound(id.clone())),
        }
    }

    pub fn is_open(&self, id: &SessionId) -> bool {
        self.open_sessions().contains_key(id)
    }

    /// A new root session holding a copy of `id`'s shown history before `message_id` (all of it
    /// when None), with new ids, titled "<title> (fork #N)", and opened.
    pub fn fork(
        &self,
        id: &SessionId,
        message_id: Option<&MessageId>,
    ) -> Result<SessionInfo, SessionError> {
        let source = self.stored(id)?;
        let (_, history) = self.history(id)?;
        let end = match message_id {
            Some(message) => history
                .iter()
                .position(|m| &m.info.id == message)
                .ok_or_else(|| SessionError::MessageNotFound {
                    session: id.clone(),
                    message: message.to_string(),
                })?,
            None => history.len(),
        };
        let (base, number) = fork_title(&source.title, self.store().fork_count(id)?);
        let now = now_ms();
        let info = SessionInfo {
            id: SessionId::new(),
            parent_id: None,
            cwd: source.cwd.clone(),
            extra_roots: source.extra_roots.clone(),
            title: format!("{base} (fork #{number})"),
            created_at: now,
            updated_at: now,
        };
        self.store().create_session(&info)?;
        let origin = ForkOrigin {
            session_id: id.clone(),
            message_id: message_id.cloned(),
            number,
        };
        self.store().put_fork_origin(&info.id, &origin)?;
        for message in crate::session::core::copy::copy_messages(&history[..end], &info.id) {
            self.store().put_message(&message.info)?;
            for part in &message.parts {
                self.store().put_part(part)?;
            }
        }
        let choice = self.store().session_choice(id)?;
        if let Some(agent) = &choice.agent {
            self.store().set_session_agent(&info.id, agent)?;
        }
        if let Some(model) = &choice.model {
            self.store().set_session_model(&info.id, model)?;
        }
        if choice.variant.is_some() {
            self.store()
                .set_session_variant(&info.id, choice.variant.as_deref())?;
        }
        if let Some(approval) = &choice.approval {
            self.store().set_session_approval(&info.id, approval)?;
        }
        if choice.client_prompt.is_some() {
            self.store()
                .set_session_client_prompt(&info.id, choice.client_prompt.as_deref())?;
        }
        self.store().flush()?;
        Ok(info)
    }

    /// Where a forked session came from.
    pub fn fork_origin(&self, id: &SessionId) -> Result<Option<ForkOrigin>, SessionError> {
        self.stored(id)?;
        Ok(self.store().fork_origin(id)?)
    }

    /// Deletes `id` with its children (closing any open here), then drops the snapshots no
    /// remaining session of its project uses. Returns the deleted ids.
    pub async fn delete(&self, id: &SessionId) -> Result<Vec<SessionId>, SessionError> {
        let info = self.stored(id)?;
        if self.status(id)? != SessionStatus::Idle {
            return Err(SessionError::Busy(id.clone()));
        }
        let deleted = self.store().delete_session(id)?;
        for gone in &deleted {
            let _ = self.close(gone);
        }
        let ids: Vec<String> = deleted.iter().map(|d| d.to_string()).collect();
        crate::worktree::remove_for(&ids).await;
        self.prune_snapshots(&info.cwd).await;
        Ok(deleted)
    }

    /// Deletes the root sessions not updated for `age` (with their children); returns them.
    pub async fn delete_older_than(
        &self,
        age: std::time::Duration,
    ) -> Result<Vec<SessionInfo>, SessionError> {
        let cutoff = now_ms() - age.as_millis() as i64;
        let old = self.store().sessions_updated_before(cutoff)?;
        let mut deleted = Vec::new();
        for info in old {
            match self.delete(&info.id).await {
                Ok(_) => deleted.push(info),
                Err(SessionError::Busy(_)) => {}
                Err(error) => return Err(error),
            }
        }
        Ok(deleted)
    }

    /// Keeps only the snapshots `cwd`'s sessions still use (a failure is only logged).
    pub(super) async fn prune_snapshots(&self, cwd: &std::path::Path) {
        let Some(project) = self.snapshots().project(cwd) else {
            return;
        };
        let grace = std::env::var("TANDEM_SNAPSHOT_GRACE_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(SNAPSHOT_GRACE, std::time::Duration::from_secs);
        let result = match self.store().snapshots_in_use(cwd) {
            Ok(keep) => project
                .keep_only(&keep, grace)
                .await
                .map_err(|e| e.to_string()),
            Err(error) => Err(error.to_string()),
        };
        if let Err(error) = result {
            tracing::warn!(%error, "cannot drop unused snapshots");
        }
    }

    /// Opens `id` here unless it already is.
    pub(super) fn ensure_open(&self, id: &SessionId) -> Result<(), SessionError> {
        if !self.is_open(id) {
            self.open(id, None, Vec::new())?;
        }
        Ok(())
    }

    /// Refuses when another live process says the session is running a turn.
    pub(super) fn refuse_if_busy_elsewhere(&self, id: &SessionId) -> Result<(), SessionError> {
        self.stored(id)?;
        if !self.is_open(id) && self.status(id)? != SessionStatus::Idle {
            return Err(SessionError::Busy(id.clone()));
        }
        Ok(())
    }
}

/// How old an unused snapshot must be before it is dropped: one taken a moment ago by another
/// process may not be stored yet (`TANDEM_SNAPSHOT_GRACE_SECS` overrides).
const SNAPSHOT_GRACE: std::time::Duration = std::time::Duration::from_secs(600);

/// The snapshot holding the project as it was before `message` (or the session's first when
/// None): the first step snapshot at or after it.
pub(super) fn boundary(messages: &[Message], message: Option<&MessageId>) -> Option<String> {
    let start = match message {
        Some(id) => messages.iter().position(|m| &m.info.id == id)?,
        None => 0,
    };
    messages[start..]
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match &p.body {
            PartBody::StepStart {
                snapshot: Some(snapshot),
            } => Some(snapshot.clone()),
            _ => None,
        })
}

/// "<base> (fork #N)": a fork of a fork counts on from its number, else from how many forks
/// the session has.
fn fork_title(title: &str, forks: u32) -> (String, u32) {
    if let Some(open) = title.rfind(" (fork #")
        && let Some(number) = title[open + 8..]
            .strip_suffix(')')
            .and_then(|n| n.parse::<u32>().ok())
    {
        return (title[..open].to_owned(), number + 1);
    }
    (title.to_owned(), forks + 1)
}

/// `roots` checked as workspace roots beside `cwd` (see `paths::roots`).
fn checked_roots(cwd: &Path, roots: &[PathBuf]) -> Result<Vec<PathBuf>, SessionError> {
    crate::paths::roots::checked(cwd, roots).map_err(SessionError::BadRoot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn fork_titles_count_on() {
        assert_eq!(fork_title("Fix the bug", 0), ("Fix the bug".into(), 1));
        assert_eq!(fork_title("Fix the bug", 2), ("Fix the bug".into(), 3));
        assert_eq!(
            fork_title("Fix the bug (fork #3)", 0),
            ("Fix the bug".into(), 4)
        );
        assert_eq!(fork_title("odd (fork #x)", 1), ("odd (fork #x)".into(), 2));
        assert!(crate::session::host::recovery::process_alive(
            std::process::id()
        ));
    }
}
