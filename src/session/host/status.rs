//! What an open session is doing (idle, busy, retrying), kept where its handle can read it,
//! written to the store for other processes, and published on the bus when it changes.

use std::sync::{Arc, Mutex};

use crate::bus::{Bus, Event};
use crate::id::{SessionId, now_ms};
use crate::message::SessionStatus;
use crate::provider::{RetryEvent, RetryObserver};
use crate::store::Store;

/// One session's status; cheap to clone, shared by its handle and its actor.
#[derive(Clone)]
pub(in crate::session) struct StatusCell {
    session_id: SessionId,
    current: Arc<Mutex<SessionStatus>>,
    store: Arc<Store>,
    bus: Arc<Bus>,
}

impl StatusCell {
    pub fn new(session_id: SessionId, store: Arc<Store>, bus: Arc<Bus>) -> Self {
        Self {
            session_id,
            current: Arc::default(),
            store,
            bus,
        }
    }

    pub fn get(&self) -> SessionStatus {
        self.current
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub fn is_idle(&self) -> bool {
        self.get() == SessionStatus::Idle
    }

    /// An observer that shows a model request's retries as the `retry` status, and its
    /// recovery as `busy` again.
    pub fn retry_observer(&self) -> RetryObserver {
        let cell = self.clone();
        RetryObserver(Arc::new(move |event| match event {
            RetryEvent::Waiting {
                attempt,
                message,
                delay,
            } => cell.set(SessionStatus::Retry {
                attempt,
                message,
                next: now_ms() + delay.as_millis() as i64,
            }),
            RetryEvent::Resumed => cell.set(SessionStatus::Busy),
        }))
    }

    /// Changes the status; a change is stored (for other processes) and published.
    pub fn set(&self, status: SessionStatus) {
        {
            let mut current = self
                .current
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if *current == status {
                return;
            }
            *current = status.clone();
        }
        if let Err(error) =
            self.store
                .put_status(&self.session_id, &status, std::process::id(), now_ms())
        {
            tracing::warn!(%error, session = %self.session_id, "cannot store the session's status");
        }
        self.bus.publish(Event::Status {
            session_id: self.session_id.clone(),
            status,
        });
    }
}
