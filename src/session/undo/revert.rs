//! Revert and unrevert (OpenCode's `SessionRevert`): hide the messages after a boundary and put
//! the files their steps changed back as they were; unrevert brings both back; the next prompt
//! makes a revert permanent (`cleanup`).

use std::collections::BTreeMap;

use crate::bus::Event;
use crate::id::{MessageId, PartId};
use crate::message::{DiffSummary, Message, PartBody, Role, SessionRevert};
use crate::session::core::state::{Services, SessionState};
use crate::session::error::SessionError;
use crate::snapshot::WorkspaceSnapshots;

/// Moves the messages a revert hides out of `messages` (a boundary part splits its message)
/// and returns them.
pub(in crate::session) fn split(
    messages: &mut Vec<Message>,
    revert: &SessionRevert,
) -> Vec<Message> {
    let Some(at) = messages.iter().position(|m| m.info.id == revert.message_id) else {
        return Vec::new();
    };
    let mut hidden = messages.split_off(at);
    if let Some(part) = &revert.part_id
        && let Some(first) = hidden.first_mut()
        && let Some(cut) = first.parts.iter().position(|p| &p.id == part)
    {
        let tail = first.parts.split_off(cut);
        let mut kept = first.clone();
        first.parts = tail;
        kept.parts.truncate(cut);
        messages.push(kept);
    }
    hidden
}

/// Puts hidden messages back after the visible ones (joining a split message).
pub(in crate::session) fn join(messages: &mut Vec<Message>, hidden: Vec<Message>) {
    let mut hidden = hidden.into_iter();
    if let Some(first) = hidden.next() {
        match messages.last_mut() {
            Some(last) if last.info.id == first.info.id => last.parts.extend(first.parts),
            _ => messages.push(first),
        }
    }
    messages.extend(hidden);
}

/// Reverts the session to just before `message_id` (or `part_id` within it).
pub(in crate::session) async fn revert(
    state: &mut SessionState,
    services: &Services,
    message_id: MessageId,
    part_id: Option<PartId>,
) -> Result<SessionRevert, SessionError> {
    revert_with(state, services, (message_id, part_id), true).await
}

/// `revert`; the files are put back only when `restore` (else only the conversation goes).
pub(in crate::session) async fn revert_with(
    state: &mut SessionState,
    services: &Services,
    (message_id, part_id): (MessageId, Option<PartId>),
    restore: bool,
) -> Result<SessionRevert, SessionError> {
    let mut all = state.messages.clone();
    join(&mut all, state.hidden.clone());
    let target = all
        .iter()
        .find(|m| m.info.id == message_id)
        .ok_or_else(|| SessionError::MessageNotFound {
            session: state.info.id.clone(),
            message: message_id.to_string(),
        })?;
    if let Some(part) = &part_id
        && !target.parts.iter().any(|p| &p.id == part)
    {
        return Err(SessionError::PartNotFound {
            message: message_id.to_string(),
            part: part.to_string(),
        });
    }
    let boundary = SessionRevert {
        message_id,
        part_id,
        snapshot: None,
        files: Vec::new(),
        diff: DiffSummary::default(),
    };
    let mut visible = all;
    let hidden = split(&mut visible, &boundary);
    let earliest = earliest_states(&hidden);
    let previous = state.revert.take();
    let mut revert = boundary;
    let files = files_to_restore(previous.as_ref(), &earliest);
    // With no file to put back, no snapshot is needed (nor can a broken store stop the undo).
    let project = services
        .snapshots
        .workspace(&state.info.cwd, &state.info.extra_roots)
        .filter(|_| restore && !files.is_empty());
    if let Some(project) = project {
        revert.files = files;
        put_back(&project, previous.as_ref(), &earliest, &mut revert).await?;
    }
    if restore {
        super::memory::take_back(&hidden);
    }
    services.store.flush()?;
    services.store.put_revert(&state.info.id, Some(&revert))?;
    state.messages = visible;
    state.hidden = hidden;
    state.revert = Some(revert.clone());
    services.bus.publish(Event::Reverted {
        session_id: state.info.id.clone(),
        revert: Some(revert.clone()),
    });
    Ok(revert)
}

/// Puts each file back to its `earliest` state (after the `previous` revert's files went back
/// to now), and notes on `revert` the snapshot of now and what an unrevert would bring back.
async fn put_back(
    project: &WorkspaceSnapshots,
    previous: Option<&SessionRevert>,
    earliest: &BTreeMap<String, &str>,
    revert: &mut SessionRevert,
) -> Result<(), SessionError> {
    let now = match previous.and_then(|p| p.snapshot.clone()) {
        Some(snapshot) => snapshot,
        None => project.track().await?,
    };
    project.check_inside(&revert.files)?;
    if let Some(previous) = previous {
        // Back to the latest state first; the new boundary may lie after the old one.
        project.restore(&now, &previous.files).await?;
    }
    let mut by_snapshot: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (file, snapshot) in earliest {
        by_snapshot.entry(snapshot).or_default().push(file.clone());
    }
    // Put the files back and, alongside, measure what unrevert would bring back: each
    // restored file from the state it goes back to.
    let restoring = async {
        for (snapshot, files) in &by_snapshot {
            project.restore(snapshot, files).await?;
        }
        Ok::<(), crate::snapshot::SnapshotError>(())
    };
    let measuring = futures::future::try_join_all(
        by_snapshot
            .iter()
            .map(|(snapshot, files)| project.changed_in(snapshot, &now, files)),
    );
    let (restored, measured) = tokio::join!(restoring, measuring);
    restored?;
    for changed in measured? {
        revert.diff.files += changed.summary.files;
        revert.diff.additions += changed.summary.additions;
        revert.diff.deletions += changed.summary.deletions;
    }
    revert.snapshot = Some(now);
    Ok(())
}

/// The files a revert puts back: those of the revert before it, and those the hidden steps
/// changed, sorted, each once.
pub(super) fn files_to_restore(
    previous: Option<&SessionRevert>,
    earliest: &BTreeMap<String, &str>,
) -> Vec<String> {
    let mut files: Vec<String> = previous.iter().flat_map(|p| p.files.clone()).collect();
    files.extend(earliest.keys().cloned());
    files.sort();
    files.dedup();
    files
}

/// Each file the hidden steps changed, with the snapshot holding it before the first of them.
pub(super) fn earliest_states(hidden: &[Message]) -> BTreeMap<String, &str> {
    let mut earliest = BTreeMap::new();
    for part in hidden.iter().flat_map(|m| &m.parts) {
        if let PartBody::Patch { snapshot, files } = &part.body {
            for file in files {
                earliest.entry(file.clone()).or_insert(snapshot.as_str());
            }
        }
    }
    earliest
}

/// Undoes the pending revert: the files as they were before it, the messages shown again.
/// Returns the revert undone, if there was one.
pub(in crate::session) async fn unrevert(
    state: &mut SessionState,
    services: &Services,
) -> Result<Option<SessionRevert>, SessionError> {
    let Some(revert) = state.revert.clone() else {
        return Ok(None);
    };
    if let Some(snapshot) = &revert.snapshot
        && let Some(project) = services
            .snapshots
            .workspace(&state.info.cwd, &state.info.extra_roots)
    {
        project.check_inside(&revert.files)?;
        project.restore(snapshot, &revert.files).await?;
    }
    services.store.put_revert(&state.info.id, None)?;
    let hidden = std::mem::take(&mut state.hidden);
    super::memory::make_again(&hidden);
    join(&mut state.messages, hidden);
    state.revert = None;
    services.bus.publish(Event::Reverted {
        session_id: state.info.id.clone(),
        revert: None,
    });
    Ok(Some(revert))
}

/// Makes a pending revert permanent (a new prompt came): the hidden messages and parts are
/// deleted from the store.
pub(in crate::session) fn cleanup(
    state: &mut SessionState,
    services: &Services,
) -> Result<(), SessionError> {
    let Some(revert) = state.revert.take() else {
        return Ok(());
    };
    services.store.flush()?;
    keep_a_copy(state, services)?;
    services
        .store
        .delete_from(&state.info.id, &revert.message_id, revert.part_id.as_ref())?;
    state.hidden.clear();
    services.bus.publish(Event::Reverted {
        session_id: state.info.id.clone(),
        revert: None,
    });
    Ok(())
}

/// Before a revert's hidden messages are deleted, the whole conversation as it was is kept as
/// a session of its own ("<title> (before undo)", its fork origin this session), so nothing
/// undone or rewound is ever lost: the person can open it, or fork from it.
fn keep_a_copy(state: &SessionState, services: &Services) -> Result<(), SessionError> {
    if state.hidden.is_empty() || state.info.parent_id.is_some() {
        return Ok(());
    }
    let mut whole = state.messages.clone();
    join(&mut whole, state.hidden.clone());
    let now = crate::id::now_ms();
    let copy = crate::message::SessionInfo {
        id: crate::id::SessionId::new(),
        parent_id: None,
        cwd: state.info.cwd.clone(),
        extra_roots: state.info.extra_roots.clone(),
        title: format!("{} (before undo)", state.info.title),
        created_at: now,
        updated_at: now,
    };
    services.store.create_session(&copy)?;
    let origin = crate::message::ForkOrigin {
        session_id: state.info.id.clone(),
        message_id: None,
        number: 0,
    };
    services.store.put_fork_origin(&copy.id, &origin)?;
    for message in crate::session::core::copy::copy_messages(&whole, &copy.id) {
        services.store.put_message(&message.info)?;
        for part in &message.parts {
            services.store.put_part(part)?;
        }
    }
    tracing::info!(session = %state.info.id, kept = %copy.id, "kept the undone turns in a session of their own");
    Ok(())
}

/// Takes up a revert (or unrevert) another process recorded since this one last looked: the
/// history is read again from the store and split at the stored boundary.
pub(in crate::session) fn catch_up(
    state: &mut SessionState,
    services: &Services,
) -> Result<(), SessionError> {
    let stored = services.store.revert(&state.info.id)?;
    if stored == state.revert {
        return Ok(());
    }
    services.store.flush()?;
    let mut messages = services.store.load_messages(&state.info.id)?;
    state.hidden = match &stored {
        Some(revert) => split(&mut messages, revert),
        None => Vec::new(),
    };
    state.messages = messages;
    state.revert = stored;
    Ok(())
}

/// The prompt `/undo` reverts to: the last one still shown (a turn's first, not one that
/// joined it).
pub(in crate::session) fn undo_target(state: &SessionState) -> Option<MessageId> {
    state
        .messages
        .iter()
        .rev()
        .find(|m| is_prompt(m))
        .map(|m| m.info.id.clone())
}

/// What `/redo` does: move the boundary to the next hidden prompt, or unrevert entirely.
pub(in crate::session) enum Redo {
    Nothing,
    RevertTo(MessageId),
    Unrevert,
}

pub(in crate::session) fn redo_target(state: &SessionState) -> Redo {
    if state.revert.is_none() {
        return Redo::Nothing;
    }
    match state.hidden.iter().skip(1).find(|m| is_prompt(m)) {
        Some(next) => Redo::RevertTo(next.info.id.clone()),
        None => Redo::Unrevert,
    }
}

/// What the steps from `from` on changed that no snapshot holds (snapshots off, the project is
/// the home folder, a snapshot failed): each file a call edited, or what a command did. `/undo`
/// names these instead of claiming it put them back.
pub(in crate::session) fn unrestorable(state: &SessionState, from: &MessageId) -> Vec<String> {
    use crate::message::{ToolKind, ToolState};
    let Some(at) = state.messages.iter().position(|m| &m.info.id == from) else {
        return Vec::new();
    };
    let mut lost: Vec<String> = Vec::new();
    let mut add = |what: String| {
        if !lost.contains(&what) {
            lost.push(what);
        }
    };
    for message in &state.messages[at..] {
        let snapshotted = message
            .parts
            .iter()
            .any(|p| matches!(p.body, PartBody::Patch { .. }));
        for part in &message.parts {
            let PartBody::Tool(call) = &part.body else {
                continue;
            };
            let ToolState::Completed {
                diffs,
                title,
                metadata,
                input,
                ..
            } = &call.state
            else {
                continue;
            };
            if call.kind == Some(ToolKind::Execute) {
                let command = input["command"].as_str().unwrap_or(title);
                let line = crate::permission::shell::analyse(command);
                if line.only_reads() {
                    continue;
                }
                let unsandboxed = metadata["sandbox"].as_str() == Some("off");
                if !snapshotted {
                    add(format!("whatever `{command}` changed"));
                } else if unsandboxed || writes_outside(&line, &state.info) {
                    // The snapshot holds the workspace; this may have written beyond it.
                    add(format!("whatever `{command}` changed outside the project"));
                }
                continue;
            }
            let changes = matches!(
                call.kind,
                Some(ToolKind::Edit | ToolKind::Delete | ToolKind::Move)
            );
            if !snapshotted && changes {
                diffs
                    .iter()
                    .for_each(|d| add(crate::paths::relative_to(&state.info.cwd, &d.path)));
            }
        }
    }
    lost
}

/// Whether `line` names a file it writes outside the session's workspace (or writes files it
/// does not name).
fn writes_outside(
    line: &crate::permission::shell::Line,
    info: &crate::message::SessionInfo,
) -> bool {
    use crate::permission::shell::Access;
    let root = info.cwd.as_path();
    line.files
        .iter()
        .filter(|f| f.access == Access::Write)
        .any(|f| match f.word.value.as_deref() {
            None => true,
            Some(path) if path.starts_with('(') => false,
            Some(path) => {
                let place = crate::paths::resolve_in(root, path);
                let real = crate::paths::real_path(&place).unwrap_or(place);
                !std::iter::once(&info.cwd)
                    .chain(&info.extra_roots)
                    .any(|root| real.starts_with(root))
            }
        })
}

fn is_prompt(message: &Message) -> bool {
    message.info.role == Role::User && !message.info.joined
}
