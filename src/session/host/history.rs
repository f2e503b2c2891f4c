//! The session manager's history methods: revert and unrevert, the diff of a turn, the
//! snapshots, the stored messages and the list of sessions.

use std::path::Path;
use std::sync::Arc;

use super::lifecycle::boundary;
use super::manager::{LIST_PAGE_SIZE, SessionManager};
use crate::id::{MessageId, PartId, SessionId};
use crate::message::{Message, PartBody, SessionInfo, SessionRevert};
use crate::session::error::SessionError;
use crate::snapshot::FileChange;
use crate::store::SessionPage;

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

    /// Rewinds `id` to before the person's message `target` names: that message and every
    /// later one leave the conversation, and (`files`) the files their steps changed are put
    /// back. A dry run only says what would go. `/redo` brings a rewind back, as it does an
    /// undo.
    pub async fn rewind(
        &self,
        id: &SessionId,
        target: &crate::session::MessageRef,
        files: bool,
        dry_run: bool,
    ) -> Result<(bool, crate::session::RewindPlan), SessionError> {
        use crate::session::undo::rewind;
        self.refuse_if_busy_elsewhere(id)?;
        self.ensure_open(id)?;
        let (_, shown) = self.history(id)?;
        let message =
            rewind::resolve(&shown, target).ok_or_else(|| SessionError::MessageNotFound {
                session: id.clone(),
                message: target
                    .id
                    .clone()
                    .or_else(|| target.fingerprint.clone())
                    .unwrap_or_default(),
            })?;
        let pending = self.store().revert(id)?;
        let mut plan = rewind::plan(&shown, pending.as_ref(), &message);
        if !files {
            plan.files.clear();
        }
        if dry_run {
            return Ok((false, plan));
        }
        let done = self.handle(id)?.revert_with(message, None, files).await?;
        plan.files = done.files;
        Ok((true, plan))
    }

    /// How many messages `id` shows now (where a turn about to start will begin).
    pub fn shown_count(&self, id: &SessionId) -> Result<usize, SessionError> {
        Ok(self.history(id)?.1.len())
    }

    /// The files the messages of `id` after the first `from` changed, as absolute paths, each
    /// once; None when no snapshot records them (snapshots off, or the home folder).
    pub fn files_changed_after(
        &self,
        id: &SessionId,
        from: usize,
    ) -> Result<Option<Vec<String>>, SessionError> {
        let (info, shown) = self.history(id)?;
        if self
            .snapshots()
            .workspace(&info.cwd, &info.extra_roots)
            .is_none()
        {
            return Ok(None);
        }
        let mut files: Vec<String> = Vec::new();
        for part in shown.iter().skip(from).flat_map(|m| &m.parts) {
            if let PartBody::Patch { files: changed, .. } = &part.body {
                for file in changed {
                    let path = info.cwd.join(file).display().to_string();
                    if !files.contains(&path) {
                        files.push(path);
                    }
                }
            }
        }
        Ok(Some(files))
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
        let Some(project) = self.snapshots().workspace(&info.cwd, &info.extra_roots) else {
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

    pub(in crate::session) fn snapshots(&self) -> &Arc<crate::snapshot::Snapshots> {
        &self.services.snapshots
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

    pub fn list(
        &self,
        cwd: Option<&Path>,
        cursor: Option<&str>,
    ) -> Result<SessionPage, SessionError> {
        Ok(self.store().list_sessions(cwd, cursor, LIST_PAGE_SIZE)?)
    }
}
