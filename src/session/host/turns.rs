//! The session manager's turn methods: prompting and cancelling, what a session runs with
//! (model, mode, variant), its usage, todos and status, and its title.

use std::collections::HashMap;
use std::sync::Arc;

use super::manager::SessionManager;
use crate::id::{SessionId, now_ms};
use crate::message::{Message, PartBody, SessionInfo, SessionStatus};
use crate::session::context::UsageReport;
use crate::session::error::{SessionError, StopReason};
use crate::session::settings::SessionView;
use crate::todo::Todo;
use crate::tool::ClientPort;

impl SessionManager {
    /// Runs one prompt turn; resolves when the turn ends.
    /// Steers the session: `content` joins its running turn at the next step, or (idle, when
    /// `start_if_idle`) starts a turn of its own that no prompt waits on.
    pub async fn steer(
        &self,
        id: &SessionId,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
        start_if_idle: bool,
    ) -> Result<crate::session::turn::joining::Steered, SessionError> {
        let handle = self
            .open_sessions()
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        if handle.status.is_idle() && start_if_idle {
            self.settle_trust(id, &port).await?;
        }
        handle.steer(content, port, start_if_idle)
    }

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

    /// The open session's final answer: its last assistant text, after its queued turns.
    pub(in crate::session) async fn last_answer(
        &self,
        id: &SessionId,
    ) -> Result<crate::session::context::history::Answer, SessionError> {
        self.handle(id)?.last_answer().await
    }

    /// The tokens the open session's model calls spent since it opened here.
    pub fn spent(&self, id: &SessionId) -> Result<crate::message::Usage, SessionError> {
        Ok(self.handle(id)?.status.spent())
    }

    /// Cancels the running turn (and any queued ones) of a session; unknown ids are ignored.
    pub fn cancel(&self, id: &SessionId) {
        if let Some(handle) = self.open_sessions().get(id) {
            handle.cancel();
        }
    }

    /// Chooses the model (`provider/model`) for the session's next turns, unchecked.
    pub fn set_model(&self, id: &SessionId, model: String) -> Result<(), SessionError> {
        self.handle(id)?.settings.set_model(&model, false)?;
        Ok(self.store().set_session_model(id, &model)?)
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
        view.goal = handle.goal.get().map(|goal| goal.snapshot());
        Ok(view)
    }

    /// Switches the session to the primary agent `mode` for its next turns.
    pub fn set_mode(&self, id: &SessionId, mode: &str) -> Result<SessionView, SessionError> {
        let handle = self.handle(id)?;
        let settings = handle.settings.clone();
        let offered_before = settings.view().external.is_some();
        settings.set_agent(mode)?;
        handle.warm();
        self.store().set_session_agent(id, mode)?;
        let view = settings.view();
        // An external agent's commands come with its mode and go with it.
        if offered_before || view.external.is_some() {
            self.bus().publish(crate::bus::Event::CommandsChanged {
                session_id: id.clone(),
                commands: self.view(id)?.commands,
            });
        }
        Ok(view)
    }

    /// Sets the option `option` of the external agent the session's mode runs to `value`.
    pub async fn choose_agent_option(
        &self,
        id: &SessionId,
        option: &str,
        value: crate::remote::OptionValue,
    ) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        let agent = settings.agent().name;
        settings.offered.choose(&agent, option, value).await?;
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

    /// The limits the session's provider reported with its last answer.
    pub fn rate_limits(&self, id: &SessionId) -> Vec<crate::provider::RateWindow> {
        self.handle(id)
            .map(|h| h.status.rate_limits())
            .unwrap_or_default()
    }

    /// Sets how much goes through without asking, from the session's next check on (`id`
    /// names the level: ask, accept-edits, full-access, read-only).
    pub fn choose_approval(
        &self,
        id: &SessionId,
        level: &str,
    ) -> Result<SessionView, SessionError> {
        let approval = crate::permission::approval::Approval::from_id(level).ok_or_else(|| {
            SessionError::UnknownApproval {
                name: level.to_owned(),
            }
        })?;
        let settings = self.handle(id)?.settings;
        settings.set_approval(approval);
        self.store().set_session_approval(id, approval.id())?;
        Ok(settings.view())
    }

    /// What the editor appends to the agent's system prompt from the next turn on (stored with
    /// the session; None takes it away).
    pub fn set_client_prompt(
        &self,
        id: &SessionId,
        prompt: Option<String>,
    ) -> Result<(), SessionError> {
        let settings = self.handle(id)?.settings;
        self.store()
            .set_session_client_prompt(id, prompt.as_deref())?;
        settings.set_client_prompt(prompt);
        Ok(())
    }

    /// Chooses one of the configured models for the session's next turns.
    pub fn choose_model(&self, id: &SessionId, model: &str) -> Result<SessionView, SessionError> {
        let settings = self.handle(id)?.settings;
        settings.set_model(model, true)?;
        self.store().set_session_model(id, model)?;
        Ok(settings.view())
    }

    /// The session's todo list (stored sessions need not be open).
    pub fn todos(&self, id: &SessionId) -> Result<Vec<Todo>, SessionError> {
        if self.store().get_session(id)?.is_none() {
            return Err(SessionError::NotFound(id.clone()));
        }
        Ok(self.store().todos(id)?)
    }

    /// The status of every session that is not idle, whichever process runs it.
    pub fn statuses(&self) -> Result<HashMap<SessionId, SessionStatus>, SessionError> {
        let me = std::process::id();
        let mut statuses: HashMap<SessionId, SessionStatus> = self
            .store()
            .active_statuses()?
            .into_iter()
            .filter(|(id, _, pid)| {
                *pid != me && super::recovery::process_alive(*pid) || *pid == me && self.is_open(id)
            })
            .map(|(id, status, _)| (id, status))
            .collect();
        for (id, status) in self.open_statuses() {
            match status {
                SessionStatus::Idle => statuses.remove(&id),
                status => statuses.insert(id, status),
            };
        }
        Ok(statuses)
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

    /// One session's status.
    pub fn status(&self, id: &SessionId) -> Result<SessionStatus, SessionError> {
        self.stored(id)?;
        Ok(self.statuses()?.remove(id).unwrap_or_default())
    }

    /// Stores the person's `title` for the session (see `title::from_person`) and announces
    /// it; a generated title never replaces it. An empty title is refused.
    pub fn rename(&self, id: &SessionId, title: &str) -> Result<SessionInfo, SessionError> {
        let title =
            crate::session::turn::title::from_person(title).ok_or(SessionError::EmptyTitle)?;
        let session = self.stored(id)?;
        let now = now_ms();
        self.store().set_session_title(id, &title, now)?;
        self.store().flush()?;
        let info = SessionInfo {
            title,
            updated_at: now,
            ..session
        };
        self.bus()
            .publish(crate::bus::Event::SessionUpdated { info: info.clone() });
        Ok(info)
    }
}
