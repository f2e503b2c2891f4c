//! The manager's session surface beyond prompting: revert and unrevert, file diffs between
//! boundaries, forks, the person's titles, and every session's status (this process's and
//! other processes').

use std::collections::HashMap;

use super::manager::SessionManager;
use crate::id::{MessageId, PartId, SessionId, now_ms};
use crate::message::{
    ForkOrigin, Message, MessageInfo, Part, PartBody, SessionInfo, SessionRevert, SessionStatus,
};
use crate::session::error::SessionError;
use crate::snapshot::FileChange;

impl SessionManager {
    /// Reverts `id` to just before `message_id` (or `part_id` in it). Refused while the session
    /// runs a turn, here or in another process.
    pub async fn revert(
        &self,
        id: &SessionId,
        message_id: MessageId,
        part_id: Option<PartId>,
    ) -> Result<SessionRevert, SessionError> {
        self.refuse_if_busy_elsewhere(id)?;
        self.ensure_open(id)?;
        self.handle(id)?.revert(message_id, part_id).await
    }

    /// Undoes `id`'s pending revert; the revert undone, if there was one.
    pub async fn unrevert(&self, id: &SessionId) -> Result<Option<SessionRevert>, SessionError> {
        self.refuse_if_busy_elsewhere(id)?;
        self.ensure_open(id)?;
        self.handle(id)?.unrevert().await
    }

    /// The session's pending revert.
    pub fn pending_revert(&self, id: &SessionId) -> Result<Option<SessionRevert>, SessionError> {
        self.stored(id)?;
        Ok(self.store().revert(id)?)
    }

    /// What changed in the project's files from the boundary before `from` (the session's first
    /// snapshot when None) to the one before `to` (now when None).
    pub async fn diff(
        &self,
        id: &SessionId,
        from: Option<&MessageId>,
        to: Option<&MessageId>,
    ) -> Result<Vec<FileChange>, SessionError> {
        let info = self.stored(id)?;
        let Some(project) = self.snapshots().project(&info.cwd) else {
            return Ok(Vec::new());
        };
        let messages = self.store().load_messages(id)?;
        let Some(start) = boundary(&messages, from) else {
            return Ok(Vec::new());
        };
        let end = match to.map(|to| boundary(&messages, Some(to))) {
            Some(Some(end)) => end,
            Some(None) | None => project.track().await?,
        };
        Ok(project.changes(&start, &end).await?)
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
        for message in copy_messages(&history[..end], &info.id) {
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
        self.store().flush()?;
        Ok(info)
    }

    /// Where a forked session came from.
    pub fn fork_origin(&self, id: &SessionId) -> Result<Option<ForkOrigin>, SessionError> {
        self.stored(id)?;
        Ok(self.store().fork_origin(id)?)
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

    /// One session's status.
    pub fn status(&self, id: &SessionId) -> Result<SessionStatus, SessionError> {
        self.stored(id)?;
        Ok(self.statuses()?.remove(id).unwrap_or_default())
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
    async fn prune_snapshots(&self, cwd: &std::path::Path) {
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

    /// A stored session's shown history (what a revert hides left out).
    pub fn history(&self, id: &SessionId) -> Result<(SessionInfo, Vec<Message>), SessionError> {
        let info = self.stored(id)?;
        let mut messages = self.store().load_messages(id)?;
        if let Some(revert) = self.store().revert(id)? {
            crate::session::undo::revert::split(&mut messages, &revert);
        }
        Ok((info, messages))
    }

    /// A stored session's record.
    pub fn stored(&self, id: &SessionId) -> Result<SessionInfo, SessionError> {
        self.store()
            .get_session(id)?
            .ok_or_else(|| SessionError::NotFound(id.clone()))
    }

    /// Opens `id` here unless it already is.
    fn ensure_open(&self, id: &SessionId) -> Result<(), SessionError> {
        if !self.is_open(id) {
            self.open(id, Vec::new())?;
        }
        Ok(())
    }

    /// Refuses when another live process says the session is running a turn.
    fn refuse_if_busy_elsewhere(&self, id: &SessionId) -> Result<(), SessionError> {
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
fn boundary(messages: &[Message], message: Option<&MessageId>) -> Option<String> {
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

/// `messages` with new ids in `session`, in the same order, links between them remapped.
fn copy_messages(messages: &[Message], session: &SessionId) -> Vec<Message> {
    let ids: HashMap<&MessageId, MessageId> = messages
        .iter()
        .map(|m| (&m.info.id, MessageId::new()))
        .collect();
    messages
        .iter()
        .map(|message| {
            let info = MessageInfo {
                id: ids[&message.info.id].clone(),
                session_id: session.clone(),
                ..message.info.clone()
            };
            let parts = message
                .parts
                .iter()
                .map(|part| {
                    let mut body = part.body.clone();
                    if let PartBody::Compaction(compaction) = &mut body {
                        compaction.tail_start = compaction
                            .tail_start
                            .as_ref()
                            .and_then(|t| ids.get(t).cloned());
                    }
                    Part {
                        id: PartId::new(),
                        message_id: info.id.clone(),
                        session_id: session.clone(),
                        body,
                    }
                })
                .collect();
            Message { info, parts }
        })
        .collect()
}

impl SessionManager {
    /// Ends the processes that left their group (`setsid`, a double fork) once no open session
    /// is running anything: which session started one cannot be told, so while another
    /// works they wait (for its close, or Tandem's exit).
    pub(super) fn end_escapees_if_idle(&self) {
        let busy = self
            .open_sessions()
            .values()
            .any(|h| !h.status.is_idle() || !h.jobs.running().is_empty());
        if !busy {
            tokio::task::spawn_blocking(crate::process::escapees::end_all);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_titles_count_on() {
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
