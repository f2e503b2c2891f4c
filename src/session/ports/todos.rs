//! The session side of todo lists: stored whole, then announced on the bus, so every client
//! (the editor's plan pane, the control server) sees each change whatever made it.

use std::sync::Arc;

use crate::bus::{Bus, Event};
use crate::id::{SessionId, now_ms};
use crate::store::Store;
use crate::todo::Todo;
use crate::tool::{TodoPort, ToolError};

pub(in crate::session) struct Todos {
    pub store: Arc<Store>,
    pub bus: Arc<Bus>,
}

impl TodoPort for Todos {
    fn todos(&self, session_id: &SessionId) -> Result<Vec<Todo>, ToolError> {
        Ok(self.store.todos(session_id)?)
    }

    fn set_todos(&self, session_id: &SessionId, todos: Vec<Todo>) -> Result<(), ToolError> {
        self.store.put_todos(session_id, &todos, now_ms())?;
        self.bus.publish(Event::TodoUpdated {
            session_id: session_id.clone(),
            todos,
        });
        Ok(())
    }
}
