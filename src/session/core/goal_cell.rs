//! A session's goal cell: the goal as its actor pursues it and its handle pauses or clears it
//! at once, each change stored and told to the editor (`Event::GoalChanged`).

use std::sync::{Arc, Mutex};

use crate::bus::{Bus, Event};
use crate::goal::Goal;
use crate::id::{MessageId, PartId, SessionId};
use crate::store::Store;

/// A session's goal, shared by its actor (which pursues it) and its handle (which pauses and
/// clears it at once, even mid-turn).
pub(in crate::session) struct GoalCell {
    session: SessionId,
    goal: Mutex<Option<Goal>>,
    store: Arc<Store>,
    bus: Arc<Bus>,
}

impl GoalCell {
    /// The session's goal as stored.
    pub fn load(session: SessionId, store: Arc<Store>, bus: Arc<Bus>) -> Self {
        let goal = store.goal(&session).unwrap_or_else(|error| {
            tracing::warn!(%error, "the session's goal could not be read");
            None
        });
        Self {
            session,
            goal: Mutex::new(goal),
            store,
            bus,
        }
    }

    pub fn get(&self) -> Option<Goal> {
        self.goal.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Keeps `goal` (None: cleared), stores it, and tells the editor.
    pub fn put(&self, goal: Option<Goal>) {
        let stored = match &goal {
            Some(goal) => self.store.put_goal(&self.session, goal),
            None => self.store.clear_goal(&self.session),
        };
        if let Err(error) = stored {
            tracing::warn!(%error, "the session's goal could not be stored");
        }
        let snapshot = goal.as_ref().map(Goal::snapshot);
        *self.goal.lock().unwrap_or_else(|p| p.into_inner()) = goal;
        self.bus.publish(Event::GoalChanged {
            session_id: self.session.clone(),
            goal: snapshot,
        });
    }

    /// Shows the person `words` on the session.
    pub fn tell(&self, words: String) {
        self.bus.publish(Event::TextDelta {
            session_id: self.session.clone(),
            message_id: MessageId::new(),
            part_id: PartId::new(),
            delta: format!("\n{words}\n"),
        });
    }
}
