//! A turn answered by an external ACP agent (an agent with an `acp` block) instead of Tandem's
//! own loop: its process started on first use and kept with the session, its session opened
//! (or continued), the person's words sent, and everything it streams kept as this child
//! session's parts while its requests are answered under Tandem's rules.

mod decide;
mod handover;
mod host;
mod offer;
mod parts;
mod warm;

pub(in crate::session) use warm::warm;

use std::sync::Arc;

use tokio::sync::mpsc;

use self::host::ExternalHost;
use self::parts::Parts;
use super::setup::TurnSetup;
use super::stream::Draft;
use crate::bus::Event;
use crate::config::AcpAgentConfig;
use crate::message::{FinishReason, PartBody, Role, Usage};
use crate::remote::{RemoteAgent, RemoteStop};
use crate::session::core::state::{Behind, RemoteLink, SessionState};
use crate::session::error::{SessionError, StopReason};
use crate::session::undo::snapshots::EarlyStage;

/// Runs one turn of `state`'s session by its external agent.
pub(in crate::session) async fn run(
    state: &mut SessionState,
    setup: &TurnSetup,
    spec: &AcpAgentConfig,
    early: Option<EarlyStage>,
) -> Result<StopReason, SessionError> {
    let mut text = offer::own_command(prompt_text(state), &setup.agent.name);
    // Files staged as the turn began stand for "before" only when the agent runs already (a
    // start takes seconds, and the staging holds the snapshot index): else staged afresh.
    let read_only = read_only(&setup.sandbox);
    let running = (state.remote.as_ref()).is_some_and(|l| l.serves(&setup.agent.name, read_only));
    let early = early.filter(|_| running);
    // A cancel while the agent starts ends the turn at once (its process dies with the
    // dropped start).
    let needs = Needs::of_turn(state, setup);
    let behind = tokio::select! {
        linked = link(state, &needs, spec) => linked.map_err(SessionError::Agent)?,
        _ = setup.cancel.cancelled() => return Ok(StopReason::Cancelled),
    };
    let todos = crate::tool::TodoPort::todos(&*setup.todos, &setup.session_id);
    let todos = todos.unwrap_or_default();
    let note = catch_up(behind, (state, &todos), &setup.agent.name, &mut text);
    let link = state.remote.as_ref().expect("linked just now");
    let (remote, session) = (link.remote.clone(), link.session.clone());
    let mut draft = Draft::begin_as(
        setup.writer.clone(),
        &setup.session_id,
        &setup.agent.name,
        format!("acp/{}", setup.agent.name),
    )?;
    if let Some(note) = note {
        draft.text(format!("{note}\n\n"))?;
    }
    // The files are staged before the agent hears the prompt; their tree is written while it
    // starts on it (what it changes after the staging is not in the snapshot).
    let staged = setup.snapshots.stage_before(early).await;
    let host = Arc::new(ExternalHost::new(setup, draft.info.id.clone()));
    let (events, mut incoming) = mpsc::unbounded_channel();
    let mut parts = Parts::default();
    let turn = remote.prompt(&session, text, host.clone(), events, &setup.cancel);
    tokio::pin!(turn);
    let written = setup.snapshots.before_staged(staged);
    tokio::pin!(written);
    let mut before = None;
    // What streamed is stored as often as Tandem's own turns store theirs.
    let mut store = tokio::time::interval(crate::session::turn::stream::STORE_EVERY);
    let stop = loop {
        tokio::select! {
            biased;
            Some(event) = incoming.recv() => parts.take(&mut draft, setup, &host, event)?,
            stop = &mut turn => break stop,
            tree = &mut written, if before.is_none() => before = Some(marked(&mut draft, tree)?),
            _ = store.tick() => draft.keep_streaming()?,
        }
    };
    let before = match before {
        Some(tree) => tree,
        None => marked(&mut draft, written.await)?,
    };
    while let Ok(event) = incoming.try_recv() {
        parts.take(&mut draft, setup, &host, event)?;
    }
    draft.close_open()?;
    // A failure it only said (Codex's 429) is a failure all the same.
    let stop = match (stop, parts.failure_said()) {
        (Ok(RemoteStop::EndTurn), Some(said)) => Err(said),
        (stop, _) => stop,
    };
    // A protected entry (`.envrc`, `tandem.json` …) the agent created by itself is set aside.
    let moved = setup
        .root_watch
        .set_aside_new(&setup.gate.approved_protected());
    crate::session::core::root_watch::tell(&setup.writer, &setup.session_id, moved);
    if let Some(tree) = &before
        && let Some(patch) = setup.snapshots.after_calls(tree).await
    {
        draft.add_patch(patch)?;
    }
    finish(state, setup, draft, parts, stop)
}

/// The snapshot before the turn, kept on its message as soon as it is written.
fn marked(draft: &mut Draft, tree: Option<String>) -> Result<Option<String>, SessionError> {
    if let Some(tree) = &tree {
        draft.mark_snapshot(tree)?;
    }
    Ok(tree)
}

/// An agent new to the conversation (another agent's until now, or its own earlier session
/// lost) is handed the conversation so far before `text`; what the person is told of it.
fn catch_up(
    behind: Option<Behind>,
    (state, todos): (&SessionState, &[crate::todo::Todo]),
    name: &str,
    text: &mut String,
) -> Option<String> {
    match (behind, handover::history(&state.messages, todos)) {
        (Some(behind), Some(history)) => {
            *text = format!("{history}{text}");
            Some(match behind {
                Behind::Lost(_) => format!(
                    "(The agent `{name}` could not continue its earlier session, so Tandem \
                     handed the conversation so far to a new one.)"
                ),
                Behind::Joined => {
                    format!("(Tandem handed the conversation so far to the agent `{name}`.)")
                }
            })
        }
        (Some(Behind::Lost(note)), None) => Some(note),
        _ => None,
    }
}

/// The words of the prompt this turn answers.
fn prompt_text(state: &SessionState) -> String {
    let Some(prompt) = state
        .messages
        .iter()
        .rev()
        .find(|m| m.info.role == Role::User)
    else {
        return String::new();
    };
    let texts: Vec<&str> = prompt
        .parts
        .iter()
        .filter_map(|p| match &p.body {
            PartBody::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n\n")
}

/// What starting a session's agent needs: from a turn's setup, or from the session alone when
/// it is started ahead of the first prompt.
struct Needs {
    name: String,
    cwd: std::path::PathBuf,
    sandbox: Arc<crate::sandbox::Policy>,
    writer: crate::session::core::writer::PartWriter,
    session_id: crate::id::SessionId,
    /// The MCP servers it is given.
    servers: Vec<crate::mcp::McpServerSpec>,
}

impl Needs {
    fn of_turn(state: &SessionState, setup: &TurnSetup) -> Self {
        use crate::tool::PermissionGate;
        let denies = |key: &str| setup.gate.verdict(key, "*") == crate::permission::Action::Deny;
        Self {
            name: setup.agent.name.clone(),
            cwd: setup.cwd.clone(),
            sandbox: setup.sandbox.clone(),
            writer: setup.writer.clone(),
            session_id: setup.session_id.clone(),
            servers: servers_for_agent(state, denies),
        }
    }
}

/// Makes sure the session has its agent running with a session open: the one it has, or a
/// new process whose session continues the stored one when it can. Returns what it missed of
/// the conversation, when it is new to it.
async fn link(
    state: &mut SessionState,
    needs: &Needs,
    spec: &AcpAgentConfig,
) -> Result<Option<Behind>, String> {
    let name = &needs.name;
    // The agent's own process runs in the session's sandbox: it may write the workspace (not
    // under a read-only caller, plan mode), its own state and caches, and the temp dir; what
    // it changes by itself is held too.
    let read_only = read_only(&needs.sandbox);
    let confined = crate::sandbox::for_agent(&needs.sandbox, &prepared_state(spec));
    if let Some(link) = &mut state.remote
        && link.serves(name, read_only)
    {
        // Started ahead of the first prompt: that prompt hears what it missed.
        return Ok(link.behind.take());
    }
    state.remote = None;
    let standing = &state.config.standing;
    let remote = RemoteAgent::start(name, spec, &needs.cwd, standing, confined.as_ref()).await?;
    let store = needs.writer.store();
    let previous = store.remote_session(&needs.session_id, name).ok().flatten();
    let opened = remote
        .open_session(&needs.cwd, &needs.servers, previous.as_deref())
        .await?;
    if let Err(error) = store.put_remote_session(&needs.session_id, name, &opened.id) {
        tracing::warn!(%error, "the external agent's session could not be recorded");
    }
    let remote = Arc::new(remote);
    state.settings.offered.link(name, &remote, &opened.id);
    offer::watch(&remote, state, &needs.writer, &needs.session_id);
    state.remote = Some(RemoteLink {
        agent: name.clone(),
        remote,
        session: opened.id,
        cost: 0.0,
        confined: read_only,
        behind: None,
    });
    Ok(match (previous, opened.note) {
        (_, Some(note)) => Some(Behind::Lost(note)),
        (None, None) => Some(Behind::Joined),
        (Some(_), None) => None,
    })
}

/// Whether the agent runs under a read-only caller (plan mode): its process is started again
/// when that changes.
fn read_only(sandbox: &crate::sandbox::Policy) -> bool {
    sandbox.mode == crate::sandbox::SandboxMode::ReadOnly
}

/// The agent's state folders, made where missing (a folder the sandbox lets it write must
/// exist first); a file named there (`~/.claude.json`) is left for the agent to create.
fn prepared_state(spec: &AcpAgentConfig) -> Vec<std::path::PathBuf> {
    let state = spec.state_dirs();
    for place in &state {
        if place.extension().is_none() && !place.exists() {
            let _ = std::fs::create_dir_all(place);
        }
    }
    state
}

/// The session's MCP servers the agent may be given: not one any of whose tools the caller's
/// rules deny (the agent would call it directly, past those rules).
fn servers_for_agent(
    state: &SessionState,
    denies: impl Fn(&str) -> bool,
) -> Vec<crate::mcp::McpServerSpec> {
    let denied: Vec<String> = state
        .mcp
        .tool_keys()
        .into_iter()
        .filter(|(server, keys)| {
            std::iter::once(format!("{server}_*"))
                .chain(keys.iter().cloned())
                .any(|key| denies(&key))
        })
        .map(|(server, _)| server)
        .collect();
    for server in &denied {
        tracing::info!(%server, "not handed to the external agent: the rules deny its tools");
    }
    state
        .mcp
        .specs()
        .into_iter()
        .filter(|spec| !denied.contains(&spec.name))
        .collect()
}

/// Completes the message, says what the agent used, and how the turn ended; a failure is
/// kept on the message and returned in words.
fn finish(
    state: &mut SessionState,
    setup: &TurnSetup,
    draft: Draft,
    parts: Parts,
    stop: Result<RemoteStop, String>,
) -> Result<StopReason, SessionError> {
    let reported = parts.usage.unwrap_or_default();
    let usage = Usage {
        input: reported.used,
        ..Usage::default()
    };
    let link = state.remote.as_mut();
    let cost = match (reported.cost, link) {
        (Some(total), Some(link)) => {
            let spent = (total - link.cost).max(0.0);
            link.cost = total;
            Some(spent)
        }
        _ => None,
    };
    let (reason, error, answer) = match &stop {
        Ok(RemoteStop::Cancelled) => (FinishReason::Cancelled, None, Ok(StopReason::Cancelled)),
        Ok(RemoteStop::MaxTokens) => (FinishReason::Length, None, Ok(StopReason::MaxTokens)),
        Ok(RemoteStop::MaxTurnRequests) => (
            FinishReason::MaxSteps,
            None,
            Ok(StopReason::MaxTurnRequests),
        ),
        Ok(RemoteStop::Refusal) => (FinishReason::ContentFilter, None, Ok(StopReason::Refusal)),
        Ok(RemoteStop::EndTurn) => (FinishReason::Stop, None, Ok(StopReason::EndTurn)),
        Err(message) => (
            FinishReason::Error,
            Some(message.clone()),
            Err(message.clone()),
        ),
    };
    if error.is_some() && state.remote.as_ref().is_some_and(|l| !l.remote.alive()) {
        state.remote = None;
    }
    let message = draft.finish_with(reason, usage, cost, error)?;
    let ids = (&setup.session_id, &message.info.id);
    setup.limits.record(setup.writer.store(), ids, cost)?;
    state.info.updated_at = message.info.completed_at.unwrap_or_default();
    state.messages.push(message);
    state.status.spend(&usage);
    if reported.size > 0 {
        setup.writer.publish(Event::Usage {
            session_id: state.info.id.clone(),
            usage,
            context_window: Some(reported.size),
            cost: super::step::session_cost(&state.messages),
        });
    }
    answer.map_err(SessionError::Agent)
}
