//! Prompts sent while a turn runs: instead of waiting for the whole turn, each joins it at its
//! next step (the model reads it inside a `<system-reminder>` saying it came mid-work), and its
//! `session/prompt` is answered when that turn ends, with the turn's stop reason.

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::id::now_ms;
use crate::message::{Message, MessageInfo, PartBody, Role};
use crate::session::core::state::SessionState;
use crate::session::error::{SessionError, StopReason};
use crate::session::turn::setup::TurnSetup;
use crate::tool::ClientPort;

/// Where a prompt's answer goes.
type Reply = oneshot::Sender<Result<StopReason, SessionError>>;

/// A prompt waiting to join the running turn.
pub(in crate::session) struct Joiner {
    pub content: Vec<PartBody>,
    /// The editor the prompt came from (used if it runs as a turn of its own).
    pub port: Arc<dyn ClientPort>,
    pub cancel: CancellationToken,
    pub reply: Reply,
}

/// The running turn's door: open while a turn runs (`Some`), closed between turns.
#[derive(Clone, Default)]
pub(in crate::session) struct JoinQueue {
    waiting: Arc<Mutex<Option<Vec<Joiner>>>>,
    /// The joiners stored into the running turn, answered when it ends.
    joined: Arc<Mutex<Vec<Reply>>>,
}

impl JoinQueue {
    fn waiting(&self) -> std::sync::MutexGuard<'_, Option<Vec<Joiner>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A turn starts: later prompts join it.
    pub fn open(&self) {
        *self.waiting() = Some(Vec::new());
    }

    /// Joins the running turn; gives the joiner back when no turn runs.
    pub fn join(&self, joiner: Joiner) -> Result<(), Joiner> {
        match self.waiting().as_mut() {
            Some(list) => {
                list.push(joiner);
                Ok(())
            }
            None => Err(joiner),
        }
    }

    /// The turn ended with `result`: answers the prompts that joined it, and hands back those
    /// that arrived too late to join (they run as turns of their own).
    pub fn close(&self, result: &Result<StopReason, SessionError>) -> Vec<Joiner> {
        let late = self.waiting().take().unwrap_or_default();
        let joined = std::mem::take(&mut *self.joined.lock().unwrap_or_else(|p| p.into_inner()));
        for reply in joined {
            let answer = match result {
                Ok(stop) => Ok(*stop),
                Err(error) => Err(SessionError::JoinedTurnFailed(error.to_string())),
            };
            let _ = reply.send(answer);
        }
        late
    }

    /// Stores the prompts waiting to join as user messages of this turn.
    pub fn store_waiting(
        &self,
        state: &mut SessionState,
        setup: &TurnSetup,
    ) -> Result<(), SessionError> {
        let waiting: Vec<Joiner> = match self.waiting().as_mut() {
            Some(list) => std::mem::take(list),
            None => return Ok(()),
        };
        for joiner in waiting {
            if joiner.cancel.is_cancelled() {
                let _ = joiner.reply.send(Ok(StopReason::Cancelled));
                continue;
            }
            let message = joined_message(state, setup, joiner.content);
            setup.writer.store_message(&message)?;
            state.messages.push(message);
            self.joined
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(joiner.reply);
        }
        Ok(())
    }
}

/// A user message of `content` joined to the running turn (read by the model at its next step).
pub(in crate::session) fn joined_message(
    state: &SessionState,
    setup: &TurnSetup,
    content: Vec<PartBody>,
) -> Message {
    let mut info = MessageInfo::new(
        state.info.id.clone(),
        Role::User,
        &setup.agent.name,
        now_ms(),
    );
    info.joined = true;
    Message::with_parts(info, content)
}

/// What steering did with the person's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Steered {
    /// They joined the running turn, read at its next step.
    Injected,
    /// No turn ran: they started one of their own.
    StartedNewTurn,
    /// No turn ran, and the client asked for a prompt in that case.
    PromptRequired,
}
