//! One actor task per open session: it owns the session's state and runs its prompt turns
//! one at a time; a prompt sent while one runs joins it (`joining`). Cancel bypasses the queue
//! through a shared token, so it acts at once.

use futures::FutureExt;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::config::LoadedConfig;
use crate::id::{MessageId, PartId};
use crate::mcp::McpSet;
use crate::message::{Message, PartBody, SessionInfo, SessionRevert, SessionStatus};
use crate::session::context::history;
use crate::session::core::state::{Services, SessionState};
use crate::session::core::status::StatusCell;
use crate::session::error::{SessionError, StopReason};
use crate::session::settings::Settings;
use crate::session::turn::joining::{JoinQueue, Joiner, Steered};
use crate::session::undo::revert;
use crate::tool::ClientPort;

enum Command {
    Prompt(Joiner),
    /// Revert to just before a message (or a part of it).
    Revert {
        message_id: MessageId,
        part_id: Option<PartId>,
        /// Whether the files are put back too (else only the conversation goes).
        restore: bool,
        reply: oneshot::Sender<Result<SessionRevert, SessionError>>,
    },
    /// Undo the pending revert.
    Unrevert {
        reply: oneshot::Sender<Result<Option<SessionRevert>, SessionError>>,
    },
    /// The text of the last assistant message that has any (after the turns queued before).
    LastAnswer {
        reply: oneshot::Sender<crate::session::context::history::Answer>,
    },
    /// The workspace's other roots from the next turn on.
    SetRoots(Vec<std::path::PathBuf>),
    /// Start the external agent the session's mode runs, ahead of its first prompt.
    Warm,
}

/// The manager's handle on a running actor.
#[derive(Clone)]
pub(in crate::session) struct SessionHandle {
    commands: mpsc::UnboundedSender<Command>,
    /// The token of the current cancel epoch: every prompt queued in it shares it.
    cancel: Arc<Mutex<CancellationToken>>,
    /// Where a prompt sent during a turn joins it.
    joining: JoinQueue,
    session_id: crate::id::SessionId,
    pub settings: Arc<Settings>,
    /// The session's MCP servers.
    pub mcp: Arc<McpSet>,
    pub status: StatusCell,
    /// The session's background commands.
    pub jobs: Arc<crate::tool::shell::jobs::JobTable>,
    /// The session's subagents in the background.
    pub background: Arc<crate::session::core::background::BackgroundChildren>,
    /// The session's goal.
    pub goal: Arc<crate::session::core::goal_cell::GoalCell>,
    /// What `/diagnostics` reports on.
    code: super::diagnostics::CodeView,
    bus: Arc<crate::bus::Bus>,
    /// Its `SessionEnd` hooks (a top-level session's; none for a subagent's).
    pub end_hooks: Option<Arc<crate::session::hooks::SessionHooks>>,
    /// The MCP servers the editor gave it (kept to open it again when trust changes).
    pub editor_servers: Vec<crate::mcp::McpServerSpec>,
}

impl SessionHandle {
    /// Starts the external agent the session's mode runs, if it does, so that what it offers
    /// is in the editor's choices before the first prompt.
    pub fn warm(&self) {
        if self.settings.agent().acp.is_some() {
            let _ = self.commands.send(Command::Warm);
        }
    }

    /// Runs a prompt turn, or joins the running one; answers when that turn ends.
    pub async fn prompt(
        &self,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
    ) -> Result<StopReason, SessionError> {
        let cancel = self
            .cancel
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        let at_once = super::jobs::command(&content, (&self.jobs, &self.background))
            .or_else(|| crate::session::goal::at_once(&content, &self.goal))
            .or_else(|| super::memory::command(&content, &self.code.cwd))
            .or_else(|| super::diagnostics::command(&content, &self.code));
        if let Some(said) = at_once {
            self.bus.publish(crate::bus::Event::TextDelta {
                session_id: self.session_id.clone(),
                message_id: MessageId::new(),
                part_id: PartId::new(),
                delta: said,
            });
            return Ok(StopReason::EndTurn);
        }
        let (reply, answer) = oneshot::channel();
        if crate::session::undo::is_undo_or_redo(&content) {
            // Never joined to a running turn: it acts on the session, which must be idle.
            if !self.status.is_idle() {
                return Err(SessionError::Busy(self.session_id.clone()));
            }
            let joiner = Joiner {
                content,
                port,
                cancel,
                reply,
            };
            return self.ask(Command::Prompt(joiner), answer).await?;
        }
        let joiner = Joiner {
            content,
            port,
            cancel,
            reply,
        };
        if let Err(joiner) = self.joining.join(joiner) {
            self.commands
                .send(Command::Prompt(joiner))
                .map_err(|_| SessionError::Closed(self.session_id.clone()))?;
        }
        answer
            .await
            .map_err(|_| SessionError::Closed(self.session_id.clone()))?
    }

    /// Puts `content` into the running turn at its next step; with no turn running, starts one
    /// that no prompt waits on (`start_if_idle`) or leaves it to the caller.
    pub fn steer(
        &self,
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
        start_if_idle: bool,
    ) -> Result<Steered, SessionError> {
        let cancel = self
            .cancel
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone();
        // Nobody waits on the turn's answer: the editor already has its own prompt's.
        let (reply, _unheard) = oneshot::channel();
        let joiner = Joiner {
            content,
            port,
            cancel,
            reply,
        };
        match self.joining.join(joiner) {
            Ok(()) => Ok(Steered::Injected),
            Err(joiner) if start_if_idle => {
                self.commands
                    .send(Command::Prompt(joiner))
                    .map_err(|_| SessionError::Closed(self.session_id.clone()))?;
                Ok(Steered::StartedNewTurn)
            }
            Err(_) => Ok(Steered::PromptRequired),
        }
    }

    /// Reverts the session to just before `message_id` (or `part_id` in it); refused while a
    /// turn runs.
    pub async fn revert(
        &self,
        message_id: MessageId,
        part_id: Option<PartId>,
    ) -> Result<SessionRevert, SessionError> {
        if !self.status.is_idle() {
            return Err(SessionError::Busy(self.session_id.clone()));
        }
        self.revert_with(message_id, part_id, true).await
    }

    /// `revert`, putting the files back only when `restore`.
    pub async fn revert_with(
        &self,
        message_id: MessageId,
        part_id: Option<PartId>,
        restore: bool,
    ) -> Result<SessionRevert, SessionError> {
        if !self.status.is_idle() {
            return Err(SessionError::Busy(self.session_id.clone()));
        }
        let (reply, answer) = oneshot::channel();
        let command = Command::Revert {
            message_id,
            part_id,
            restore,
            reply,
        };
        self.ask(command, answer).await?
    }

    /// Undoes the pending revert (if any); refused while a turn runs.
    pub async fn unrevert(&self) -> Result<Option<SessionRevert>, SessionError> {
        if !self.status.is_idle() {
            return Err(SessionError::Busy(self.session_id.clone()));
        }
        let (reply, answer) = oneshot::channel();
        self.ask(Command::Unrevert { reply }, answer).await?
    }

    /// Sends `command` to the actor and waits for its `answer`.
    async fn ask<T>(
        &self,
        command: Command,
        answer: oneshot::Receiver<T>,
    ) -> Result<T, SessionError> {
        self.commands
            .send(command)
            .map_err(|_| SessionError::Closed(self.session_id.clone()))?;
        answer
            .await
            .map_err(|_| SessionError::Closed(self.session_id.clone()))
    }

    /// The session's final answer so far, once the turns queued before this call are done.
    pub async fn last_answer(
        &self,
    ) -> Result<crate::session::context::history::Answer, SessionError> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::LastAnswer { reply })
            .map_err(|_| SessionError::Closed(self.session_id.clone()))?;
        answer
            .await
            .map_err(|_| SessionError::Closed(self.session_id.clone()))
    }

    /// The workspace's other roots, from the next turn on (a running turn keeps its own).
    pub fn set_roots(&self, roots: Vec<std::path::PathBuf>) {
        let _ = self.commands.send(Command::SetRoots(roots));
    }

    /// Cancels the running and queued turns; later prompts start a new epoch.
    pub fn cancel(&self) {
        let mut token = self
            .cancel
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        token.cancel();
        *token = CancellationToken::new();
    }
}

/// Once the MCP servers are connected, tells the editor their prompts are commands too.
fn announce_prompts(
    services: &Services,
    session_id: &crate::id::SessionId,
    settings: &Arc<Settings>,
    mcp: &Arc<McpSet>,
) {
    if mcp.is_empty() {
        return;
    }
    let (bus, session_id, settings, mcp) = (
        services.bus.clone(),
        session_id.clone(),
        settings.clone(),
        Arc::downgrade(mcp),
    );
    tokio::spawn(async move {
        let Some(servers) = mcp.upgrade() else {
            return;
        };
        servers.settled().await;
        let prompts = crate::session::settings::prompt_commands(&servers);
        if prompts.is_empty() {
            return;
        }
        let mut commands = settings.view().commands;
        commands.extend(prompts);
        bus.publish(crate::bus::Event::CommandsChanged {
            session_id,
            commands,
        });
    });
}

/// Runs `turn`, turning a panic in it into an internal error (logged).
async fn caught(
    turn: impl std::future::Future<Output = Result<StopReason, SessionError>>,
) -> Result<StopReason, SessionError> {
    std::panic::AssertUnwindSafe(turn)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            tracing::error!(%what, "a turn panicked");
            Err(SessionError::Internal(what))
        })
}

/// Starts the actor of an open session.
pub(in crate::session) fn spawn(
    services: Services,
    info: SessionInfo,
    messages: Vec<Message>,
    config: Arc<LoadedConfig>,
    mcp: Arc<McpSet>,
    revert: Option<SessionRevert>,
) -> SessionHandle {
    let (commands, inbox) = mpsc::unbounded_channel();
    let session_id = info.id.clone();
    let status = StatusCell::new(
        session_id.clone(),
        services.store.clone(),
        services.bus.clone(),
    );
    let code = super::diagnostics::CodeView {
        lsp: services.lsp.clone(),
        config: config.clone(),
        cwd: info.cwd.clone(),
    };
    let goal = Arc::new(crate::session::core::goal_cell::GoalCell::load(
        session_id.clone(),
        services.store.clone(),
        services.bus.clone(),
    ));
    let cells = (status.clone(), goal.clone());
    let state = super::opening::open_state(info, messages, config, mcp.clone(), revert, cells);
    let end_hooks = (state.info.parent_id.is_none() && !state.hooks.is_empty()).then(|| {
        Arc::new(crate::session::hooks::SessionHooks::new(
            &state,
            &services,
            CancellationToken::new(),
        ))
    });
    let settings = state.settings.clone();
    let jobs = state.jobs.clone();
    let background = state.background.clone();
    let bus = services.bus.clone();
    announce_prompts(&services, &session_id, &settings, &mcp);
    let joining = JoinQueue::default();
    tokio::spawn(serve(state, services, inbox, joining.clone()));
    SessionHandle {
        commands,
        joining,
        mcp,
        cancel: Arc::new(Mutex::new(CancellationToken::new())),
        session_id,
        settings,
        status,
        jobs,
        background,
        goal,
        code,
        bus,
        end_hooks,
        editor_servers: Vec::new(),
    }
}

/// Ends the session's external agent when it has sat idle past its `idle_timeout` (or its
/// process has gone); the next task starts it again and continues its session.
fn end_idle_agent(state: &mut SessionState) {
    if state
        .remote
        .as_ref()
        .is_some_and(|link| link.remote.idle_too_long() || !link.remote.alive())
    {
        tracing::info!("ending an idle external agent");
        state.remote = None;
    }
}

/// The actor's loop: one command at a time, until every handle is gone.
async fn serve(
    mut state: SessionState,
    services: Services,
    mut inbox: mpsc::UnboundedReceiver<Command>,
    door: JoinQueue,
) {
    // Prompts that came as a turn ended, too late to join it: they run next, in order.
    let mut late: VecDeque<Joiner> = VecDeque::new();
    // A top-level session's skills follow their folders (a subagent's are its caller's).
    let mut skills = state
        .info
        .parent_id
        .is_none()
        .then(|| super::skill_watch::SkillWatch::new(&state));
    loop {
        let command = match late.pop_front() {
            Some(joiner) => Command::Prompt(joiner),
            None => {
                let next = tokio::select! {
                    next = inbox.recv() => Some(next),
                    () = tokio::time::sleep(super::skill_watch::EVERY), if skills.is_some() || state.remote.is_some() => None,
                };
                match next {
                    Some(Some(command)) => command,
                    Some(None) => break,
                    None => {
                        if let Some(watch) = &mut skills {
                            watch.look(&mut state, &services);
                        }
                        end_idle_agent(&mut state);
                        continue;
                    }
                }
            }
        };
        match command {
            Command::Prompt(joiner) => {
                if let Some(watch) = &mut skills {
                    watch.look(&mut state, &services);
                }
                late.extend(prompt(&mut state, &services, joiner, &door).await)
            }
            Command::Revert {
                message_id,
                part_id,
                restore,
                reply,
            } => {
                let at = (message_id, part_id);
                let result = revert::revert_with(&mut state, &services, at, restore).await;
                let _ = reply.send(result);
            }
            Command::Unrevert { reply } => {
                let _ = reply.send(revert::unrevert(&mut state, &services).await);
            }
            Command::LastAnswer { reply } => {
                let _ = reply.send(history::last_answer(&state.messages));
            }
            Command::SetRoots(roots) => state.info.extra_roots = roots,
            Command::Warm => crate::session::turn::external::warm(&mut state, &services).await,
        }
    }
    tracing::debug!(session = %state.info.id, "session actor stopped");
}

/// Runs one prompt's turn and answers it; returns the prompts that came too late to join it.
async fn prompt(
    state: &mut SessionState,
    services: &Services,
    joiner: Joiner,
    door: &JoinQueue,
) -> Vec<Joiner> {
    let Joiner {
        content,
        port,
        cancel,
        reply,
    } = joiner;
    if cancel.is_cancelled() {
        let _ = reply.send(Ok(StopReason::Cancelled));
        return Vec::new();
    }
    door.open();
    let status = state.status.clone();
    status.set(SessionStatus::Busy);
    // A panic ends this turn with an error, never the session's actor. A goal keeps the
    // session working, turn after turn, until it holds or stops.
    let turns = crate::session::goal::turns(state, services, content, (port, cancel), door);
    let result = caught(turns).await;
    status.set(SessionStatus::Idle);
    // The answer promises the turn is stored: wait for the written-behind rows.
    let result = services
        .store
        .flush()
        .map_err(SessionError::from)
        .and(result);
    let late = door.close(&result);
    let _ = reply.send(result);
    late
}
