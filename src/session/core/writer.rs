//! The one way a turn records what happened: a part (or message header) goes into the store,
//! written behind, and onto the bus, so every client sees it in the order it happened.

use std::sync::Arc;

use crate::bus::{Bus, Event};
use crate::message::{Message, MessageInfo, Part};
use crate::store::{Store, StoreError};

#[derive(Clone)]
pub(in crate::session) struct PartWriter {
    store: Arc<Store>,
    bus: Arc<Bus>,
}

impl PartWriter {
    pub fn new(store: Arc<Store>, bus: Arc<Bus>) -> Self {
        Self { store, bus }
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Stores `part` and tells subscribers (`is_new`: the first they hear of it).
    pub fn save(&self, part: Part, is_new: bool) -> Result<(), StoreError> {
        self.store.put_part(&part)?;
        self.show(part, is_new);
        Ok(())
    }

    /// Stores `part` without telling subscribers (text they have already seen streaming).
    pub fn store_only(&self, part: &Part) -> Result<(), StoreError> {
        self.store.put_part(part)
    }

    /// Tells subscribers about `part` without storing it (a call whose arguments are still
    /// streaming is not a complete record yet).
    pub fn show(&self, part: Part, is_new: bool) {
        self.bus.publish(Event::PartUpdated {
            part: Box::new(part),
            is_new,
        });
    }

    /// Stores a message header (new, or completed).
    pub fn message(&self, info: &MessageInfo) -> Result<(), StoreError> {
        self.store.put_message(info)
    }

    /// Stores a whole message, header first (its parts announced as new).
    pub fn store_message(&self, message: &Message) -> Result<(), StoreError> {
        self.message(&message.info)?;
        for part in &message.parts {
            self.save(part.clone(), true)?;
        }
        Ok(())
    }

    /// Publishes an event that is not a stored part (streamed text, live output, usage).
    pub fn publish(&self, event: Event) {
        self.bus.publish(event);
    }
}
