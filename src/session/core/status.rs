//! What an open session is doing (idle, busy, retrying), the tokens its model calls spent and
//! the limits its provider last reported, kept where its handle can read them; the status is stored and published when it changes.

use std::sync::{Arc, Mutex};

use crate::bus::{Bus, Event};
use crate::id::{SessionId, now_ms};
use crate::message::{SessionStatus, Usage};
use crate::provider::{RateWindow, RetryEvent, RetryObserver};
use crate::store::Store;

/// One session's status; cheap to clone, shared by its handle and its actor.
#[derive(Clone)]
pub(in crate::session) struct StatusCell {
    session_id: SessionId,
    current: Arc<Mutex<SessionStatus>>,
    /// Every model call's tokens since the session opened here.
    spent: Arc<Mutex<Usage>>,
    /// The limits the provider reported with its last answer.
    limits: Arc<Mutex<Vec<RateWindow>>>,
    store: Arc<Store>,
    bus: Arc<Bus>,
}

impl StatusCell {
    pub fn new(session_id: SessionId, store: Arc<Store>, bus: Arc<Bus>) -> Self {
        Self {
            session_id,
            current: Arc::default(),
            spent: Arc::default(),
            limits: Arc::default(),
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

    /// Adds one model call's tokens.
    pub fn spend(&self, usage: &Usage) {
        let mut spent = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        spent.input += usage.input;
        spent.output += usage.output;
        spent.reasoning += usage.reasoning;
        spent.cache_read += usage.cache_read;
        spent.cache_write += usage.cache_write;
    }

    /// The tokens spent since the session opened here.
    pub fn spent(&self) -> Usage {
        *self.spent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The limits the provider reported with its last answer.
    pub fn rate_limits(&self) -> Vec<RateWindow> {
        self.limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
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
            RetryEvent::Limits(windows) => {
                *cell.limits.lock().unwrap_or_else(|p| p.into_inner()) = windows;
            }
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
