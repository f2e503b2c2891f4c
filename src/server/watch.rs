//! Watches the store for what any process changed (messages, parts, statuses, reverts, todos,
//! session records) and broadcasts it as events, so subscribers see `tandem acp` sessions live.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::id::{SessionId, now_ms};
use crate::message::{SessionRevert, SessionStatus};
use crate::session::SessionManager;
use crate::store::Store;

/// How often the store is read: well inside the 1 s within which changes must show.
const POLL: Duration = Duration::from_millis(150);

/// One event: `{"type": "...", "properties": {...}}`, with the session it concerns.
#[derive(Debug, Clone)]
pub struct Event {
    pub session_id: SessionId,
    pub body: Value,
}

/// Starts watching; events go to the returned channel's subscribers.
pub fn start(manager: Arc<SessionManager>) -> broadcast::Sender<Event> {
    let (sender, _) = broadcast::channel(4096);
    let events = sender.clone();
    tokio::spawn(async move {
        let store = manager.store().clone();
        let mut seen = match Seen::now(&store) {
            Ok(seen) => seen,
            Err(error) => {
                tracing::error!(%error, "cannot watch the session store");
                return;
            }
        };
        let mut tick = tokio::time::interval(POLL);
        loop {
            tick.tick().await;
            if events.receiver_count() == 0 {
                // Nobody listens: keep only the watermarks current.
                if let Ok(fresh) = Seen::now(&store) {
                    seen = fresh;
                }
                continue;
            }
            match seen.read(&manager) {
                Ok(found) => found.into_iter().for_each(|event| drop(events.send(event))),
                Err(error) => tracing::warn!(%error, "cannot read the session store"),
            }
        }
    });
    sender
}

/// What the watcher has already reported.
struct Seen {
    change: i64,
    since_ms: i64,
    statuses: HashMap<SessionId, SessionStatus>,
    reverts: HashMap<SessionId, SessionRevert>,
    todos: HashMap<SessionId, i64>,
    sessions: HashMap<SessionId, i64>,
}

impl Seen {
    fn now(store: &Store) -> Result<Self, crate::store::StoreError> {
        Ok(Self {
            change: store.last_change()?,
            since_ms: now_ms(),
            statuses: HashMap::new(),
            reverts: store.all_reverts()?.into_iter().collect(),
            todos: HashMap::new(),
            sessions: HashMap::new(),
        })
    }

    fn read(
        &mut self,
        manager: &SessionManager,
    ) -> Result<Vec<Event>, crate::session::SessionError> {
        let store = manager.store();
        let mut events = Vec::new();
        let started = now_ms();
        for info in store.sessions_updated_since(self.since_ms)? {
            if self.sessions.insert(info.id.clone(), info.updated_at) != Some(info.updated_at) {
                let body = json!({"type": "session.updated", "properties": {"info": crate::service::session_summary(&info)}});
                events.push(Event {
                    session_id: info.id,
                    body,
                });
            }
        }
        let statuses = manager.statuses()?;
        for (id, status) in &statuses {
            if self.statuses.get(id) != Some(status) {
                events.push(status_event(id, status));
            }
        }
        for id in self
            .statuses
            .keys()
            .filter(|id| !statuses.contains_key(*id))
        {
            events.push(status_event(id, &SessionStatus::Idle));
        }
        self.statuses = statuses;
        let changes = store.changes_since(self.change)?;
        self.change = changes.last;
        for info in changes.messages {
            let body = json!({"type": "message.updated", "properties": {"info": info}});
            events.push(Event {
                session_id: info.session_id.clone(),
                body,
            });
        }
        for part in changes.parts {
            let body = json!({"type": "message.part.updated", "properties": {"part": part}});
            events.push(Event {
                session_id: part.session_id.clone(),
                body,
            });
        }
        for (id, todos, at) in store.todos_updated_since(self.since_ms)? {
            if self.todos.insert(id.clone(), at) != Some(at) {
                let body = json!({"type": "todo.updated", "properties": {"sessionID": id, "todos": todos}});
                events.push(Event {
                    session_id: id,
                    body,
                });
            }
        }
        let reverts: HashMap<SessionId, SessionRevert> = store.all_reverts()?.into_iter().collect();
        for (id, revert) in &reverts {
            if self.reverts.get(id) != Some(revert) {
                events.push(revert_event(id, Some(revert)));
            }
        }
        for id in self.reverts.keys().filter(|id| !reverts.contains_key(*id)) {
            events.push(revert_event(id, None));
        }
        self.reverts = reverts;
        // Rows stamped in the last instant may land after this read: look a second back.
        self.since_ms = started - 1_000;
        Ok(events)
    }
}

fn status_event(id: &SessionId, status: &SessionStatus) -> Event {
    let body = json!({"type": "session.status", "properties": {"sessionID": id, "status": status}});
    Event {
        session_id: id.clone(),
        body,
    }
}

fn revert_event(id: &SessionId, revert: Option<&SessionRevert>) -> Event {
    let body = json!({"type": "session.revert", "properties": {"sessionID": id, "revert": revert}});
    Event {
        session_id: id.clone(),
        body,
    }
}
