//! One actor task per open session: it owns the session's state and runs its prompt turns
//! one at a time. Cancel bypasses the queue through a shared token, so it acts at once.

use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::error::{SessionError, StopReason};
use super::settings::Settings;
use super::state::{Services, SessionState};
use super::{history, turn};
use crate::agent::Agents;
use crate::config::LoadedConfig;
use crate::message::{Message, PartBody, SessionInfo};
use crate::tool::ClientPort;

enum Command {
    Prompt {
        content: Vec<PartBody>,
        port: Arc<dyn ClientPort>,
        cancel: CancellationToken,
        reply: oneshot::Sender<Result<StopReason, SessionError>>,
    },
    /// The text of the last assistant message that has any (after the turns queued before).
    LastAnswer { reply: oneshot::Sender<String> },
}

/// The manager's handle on a running actor.
#[derive(Clone)]
pub(super) struct SessionHandle {
    commands: mpsc::UnboundedSender<Command>,
    /// The token of the current cancel epoch: every prompt queued in it shares it.
    cancel: Arc<Mutex<CancellationToken>>,
    session_id: crate::id::SessionId,
    pub settings: Arc<Settings>,
}

impl SessionHandle {
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
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::Prompt {
                content,
                port,
                cancel,
                reply,
            })
            .map_err(|_| SessionError::Closed(self.session_id.clone()))?;
        answer
            .await
            .map_err(|_| SessionError::Closed(self.session_id.clone()))?
    }

    /// The session's final answer so far, once the turns queued before this call are done.
    pub async fn last_answer(&self) -> Result<String, SessionError> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(Command::LastAnswer { reply })
            .map_err(|_| SessionError::Closed(self.session_id.clone()))?;
        answer
            .await
            .map_err(|_| SessionError::Closed(self.session_id.clone()))
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

/// Starts the actor of an open session.
pub(super) fn spawn(
    services: Services,
    info: SessionInfo,
    messages: Vec<Message>,
    config: Arc<LoadedConfig>,
) -> SessionHandle {
    let (commands, mut inbox) = mpsc::unbounded_channel();
    let session_id = info.id.clone();
    let agents = Agents::load(&config.config, &info.cwd);
    let settings = Arc::new(Settings::new(config.clone(), agents));
    let mut state = SessionState {
        settings: settings.clone(),
        info,
        messages,
        config,
    };
    tokio::spawn(async move {
        while let Some(command) = inbox.recv().await {
            match command {
                Command::Prompt {
                    content,
                    port,
                    cancel,
                    reply,
                } => {
                    let result = if cancel.is_cancelled() {
                        Ok(StopReason::Cancelled)
                    } else {
                        let result = turn::run(&mut state, &services, content, port, cancel).await;
                        // The answer promises the turn is stored: wait for the written-behind rows.
                        services
                            .store
                            .flush()
                            .map_err(SessionError::from)
                            .and(result)
                    };
                    let _ = reply.send(result);
                }
                Command::LastAnswer { reply } => {
                    let _ = reply.send(history::last_answer(&state.messages));
                }
            }
        }
        tracing::debug!(session = %state.info.id, "session actor stopped");
    });
    SessionHandle {
        commands,
        cancel: Arc::new(Mutex::new(CancellationToken::new())),
        session_id,
        settings,
    }
}
