//! What every step of a turn shares, built once when the turn starts: the model, the system
//! prompt, the tools offered and the ports the tools talk through.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::actor::SessionState;
use super::permission::Gate;
use super::subagent::Delegation;
use super::todos::Todos;
use crate::agent;
use crate::provider::{ResolvedModel, ToolSpec};
use crate::tool::{ClientPort, SubagentPort};

pub(super) struct TurnSetup {
    pub model: ResolvedModel,
    pub system: Arc<[String]>,
    /// The tools offered on every step but the last (which offers none).
    pub tools: Arc<[ToolSpec]>,
    pub port: Arc<dyn ClientPort>,
    pub gate: Arc<Gate>,
    pub delegation: Arc<Delegation>,
    pub todos: Arc<Todos>,
    pub cancel: CancellationToken,
}

impl TurnSetup {
    pub fn new(
        state: &SessionState,
        model: ResolvedModel,
        port: Arc<dyn ClientPort>,
        gate: Arc<Gate>,
        cancel: CancellationToken,
    ) -> Self {
        let delegation = Arc::new(Delegation::new(state, port.clone()));
        let tools = state
            .tools
            .specs(|name| gate.offers(name), &delegation.available())
            .into();
        let system = agent::system_prompt(
            &state.agent,
            &state.info.cwd,
            &model.full_id(),
            &state.config.config.instructions,
        )
        .into();
        Self {
            model,
            system,
            tools,
            port,
            gate,
            delegation,
            todos: Arc::new(Todos {
                store: state.store.clone(),
                bus: state.bus.clone(),
            }),
            cancel,
        }
    }
}
