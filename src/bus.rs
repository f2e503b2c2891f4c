//! The event bus: typed events the session core publishes as work happens. Subscribers are
//! called synchronously, in publish order, so what a client sees keeps the order of the work.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::id::{MessageId, PartId, SessionId};
use crate::message::{DiffSummary, Part, SessionInfo, SessionRevert, SessionStatus, Usage};
use crate::todo::Todo;

/// Something that happened in a session.
#[derive(Debug, Clone)]
pub enum Event {
    /// Text streamed into an assistant text part.
    TextDelta {
        session_id: SessionId,
        message_id: MessageId,
        part_id: PartId,
        delta: String,
    },
    /// Reasoning streamed into an assistant reasoning part.
    ReasoningDelta {
        session_id: SessionId,
        message_id: MessageId,
        part_id: PartId,
        delta: String,
    },
    /// A part was created (`is_new`) or changed: tool state changes, finished text.
    PartUpdated { part: Box<Part>, is_new: bool },
    /// New output of a running tool call (only what is new).
    ToolOutput {
        session_id: SessionId,
        call_id: String,
        delta: String,
    },
    /// A running tool call's output lives in the editor's terminal `terminal_id`.
    ToolTerminal {
        session_id: SessionId,
        call_id: String,
        terminal_id: String,
    },
    /// The session's todo list changed (from any source); carries the whole list.
    TodoUpdated {
        session_id: SessionId,
        todos: Vec<Todo>,
    },
    /// A `task` call (`parent_call_id` in `parent_session`) started a subagent in `child_session`.
    SubagentStarted {
        parent_session: SessionId,
        parent_call_id: String,
        child_session: SessionId,
        agent: String,
        description: String,
    },
    /// A subagent started in the background by `parent_call_id` has ended.
    SubagentEnded {
        parent_session: SessionId,
        parent_call_id: String,
        child_session: SessionId,
    },
    /// The session's goal changed (set, judged, paused, cleared): its snapshot, None when
    /// cleared.
    GoalChanged {
        session_id: SessionId,
        goal: Option<serde_json::Value>,
    },
    /// Context usage after a model call.
    Usage {
        session_id: SessionId,
        usage: Usage,
        /// The model's context window, when known.
        context_window: Option<u64>,
        /// The session's total cost so far in USD, when the model's prices are known.
        cost: Option<f64>,
    },
    /// The session record changed (title, updated time).
    SessionUpdated { info: SessionInfo },
    /// The session's mode (primary agent) changed by itself: an approved plan switched it.
    ModeChanged { session_id: SessionId, mode: String },
    /// What the person can choose for the session changed by itself (the external agent
    /// answering it offered other modes or options): the editor reads the choices again.
    OptionsChanged { session_id: SessionId },
    /// The session's slash commands changed (its MCP servers connected with prompts).
    CommandsChanged {
        session_id: SessionId,
        commands: Vec<CommandView>,
    },
    /// A turn changed the project's files (shown when it ends); `message_id` is its prompt.
    TurnChanged {
        session_id: SessionId,
        message_id: MessageId,
        diff: DiffSummary,
    },
    /// Protected files a command created without the person's say-so were set aside.
    ProtectedSetAside {
        session_id: SessionId,
        paths: Vec<String>,
    },
    /// A snapshot of the project could not be recorded this turn: `/undo` cannot put back what
    /// the turn changed. Said live when the turn ends.
    SnapshotFailed {
        session_id: SessionId,
        message_id: MessageId,
        error: String,
    },
    /// The session was reverted (its pending revert), or its revert was undone or made
    /// permanent (None).
    Reverted {
        session_id: SessionId,
        revert: Option<SessionRevert>,
    },
    /// What the session is doing changed.
    Status {
        session_id: SessionId,
        status: SessionStatus,
    },
    /// A compaction of the session's context started, finished or failed.
    Compaction {
        session_id: SessionId,
        /// The summary message it writes; the same for each of its events.
        compaction_id: MessageId,
        state: CompactionState,
    },
}

/// A slash command as the editor lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandView {
    pub name: String,
    pub description: String,
    /// What its arguments are, when it takes any.
    pub hint: Option<String>,
}

/// Where a compaction is.
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionState {
    Started,
    Completed {
        summary: String,
        /// Context tokens before, and an estimate after.
        tokens_before: u64,
        tokens_after: u64,
    },
    Failed {
        error: String,
    },
}

impl Event {
    pub fn session_id(&self) -> &SessionId {
        match self {
            Event::TextDelta { session_id, .. }
            | Event::ReasoningDelta { session_id, .. }
            | Event::ToolOutput { session_id, .. }
            | Event::ToolTerminal { session_id, .. }
            | Event::TodoUpdated { session_id, .. }
            | Event::SubagentStarted {
                parent_session: session_id,
                ..
            }
            | Event::SubagentEnded {
                parent_session: session_id,
                ..
            }
            | Event::Usage { session_id, .. }
            | Event::GoalChanged { session_id, .. }
            | Event::Compaction { session_id, .. }
            | Event::TurnChanged { session_id, .. }
            | Event::SnapshotFailed { session_id, .. }
            | Event::ProtectedSetAside { session_id, .. }
            | Event::Reverted { session_id, .. }
            | Event::Status { session_id, .. }
            | Event::CommandsChanged { session_id, .. }
            | Event::OptionsChanged { session_id }
            | Event::ModeChanged { session_id, .. } => session_id,
            Event::PartUpdated { part, .. } => &part.session_id,
            Event::SessionUpdated { info } => &info.id,
        }
    }
}

type Callback = Arc<dyn Fn(&Event) + Send + Sync>;

/// Fan-out of events to subscribers.
#[derive(Default)]
pub struct Bus {
    subscribers: RwLock<Vec<(u64, Callback)>>,
    next_id: AtomicU64,
}

/// Keeps a subscription alive; dropping it unsubscribes.
#[must_use = "dropping a Subscription unsubscribes at once"]
pub struct Subscription {
    bus: Arc<Bus>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut subs = self
            .bus
            .subscribers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        subs.retain(|(id, _)| *id != self.id);
    }
}

impl Bus {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Calls `callback` for every event published from now until the subscription drops.
    /// The callback runs on the publisher's task: it must be quick and must not block.
    pub fn subscribe(
        self: &Arc<Self>,
        callback: impl Fn(&Event) + Send + Sync + 'static,
    ) -> Subscription {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.subscribers
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push((id, Arc::new(callback)));
        Subscription {
            bus: self.clone(),
            id,
        }
    }

    pub fn publish(&self, event: Event) {
        let subs = self
            .subscribers
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (_, callback) in subs.iter() {
            callback(&event);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[test]
    fn subscribers_see_events_in_order_until_dropped() {
        let bus = Bus::new();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let sub = bus.subscribe(move |e| {
            if let Event::TextDelta { delta, .. } = e {
                sink.lock().unwrap().push(delta.clone());
            }
        });
        let delta = |d: &str| Event::TextDelta {
            session_id: SessionId::from("s"),
            message_id: MessageId::from("m"),
            part_id: PartId::from("p"),
            delta: d.into(),
        };
        bus.publish(delta("a"));
        bus.publish(delta("b"));
        drop(sub);
        bus.publish(delta("c"));
        assert_eq!(*seen.lock().unwrap(), ["a", "b"]);
    }
}
