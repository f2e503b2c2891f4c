//! What the connection's handlers reach during a turn of the agent: the host that answers its
//! requests, where its updates go, its tool calls so far, and a signal each time it speaks
//! (for the bound on silence). Outside a turn its requests are refused.

use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::SessionUpdate;
use tokio::sync::{Notify, mpsc};

use super::events::{Calls, RemoteEvent};
use super::host::RemoteHost;
use super::offer::OfferCell;

#[derive(Default)]
pub struct TurnSlot {
    host: Mutex<Option<Arc<dyn RemoteHost>>>,
    events: Mutex<Option<mpsc::UnboundedSender<RemoteEvent>>>,
    pub calls: Mutex<Calls>,
    pub heard: Notify,
    /// What the agent offers the person (modes, options, commands), whenever it says so.
    pub offer: OfferCell,
}

impl TurnSlot {
    pub fn begin(&self, host: Arc<dyn RemoteHost>, events: mpsc::UnboundedSender<RemoteEvent>) {
        *self.host.lock().unwrap_or_else(|p| p.into_inner()) = Some(host);
        *self.events.lock().unwrap_or_else(|p| p.into_inner()) = Some(events);
    }

    pub fn end(&self) {
        self.host.lock().unwrap_or_else(|p| p.into_inner()).take();
        self.events.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    /// The host of the running turn; the agent has spoken.
    pub fn host(&self) -> Option<Arc<dyn RemoteHost>> {
        self.heard.notify_one();
        self.host.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// An update from the agent: what it offers is kept; the rest is passed on to the
    /// running turn (outside one, such as the history `session/load` replays, it is dropped).
    pub fn update(&self, update: SessionUpdate) {
        self.heard.notify_one();
        if self.offer.take(&update) {
            return;
        }
        let event = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .event(update);
        if let Some(event) = event
            && let Some(events) = &*self.events.lock().unwrap_or_else(|p| p.into_inner())
        {
            let _ = events.send(event);
        }
    }
}
