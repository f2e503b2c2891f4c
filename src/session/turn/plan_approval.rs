//! What an approved plan does to the turn: when plan mode's `exit_plan` comes back approved,
//! the session switches to build mode (stored, and the editor told) and the rest of the turn
//! runs as build, with build's tools, rules and sandbox, from the next step on.

use crate::bus::Event;
use crate::message::{PartBody, Role, ToolState};
use crate::session::core::state::{Services, SessionState};
use crate::session::error::SessionError;
use crate::session::turn::setup::{TurnChoice, TurnSetup};

/// The mode an approved plan is carried out in.
const BUILD: &str = "build";

/// Whether the step just run had the person approve a plan.
pub(in crate::session) fn approved(state: &SessionState) -> bool {
    let Some(last) = state
        .messages
        .last()
        .filter(|m| m.info.role == Role::Assistant)
    else {
        return false;
    };
    last.parts.iter().any(|part| match &part.body {
        PartBody::Tool(call) => {
            call.tool == "exit_plan"
                && matches!(&call.state, ToolState::Completed { metadata, .. }
                    if metadata["approved"] == true)
        }
        _ => false,
    })
}

/// Switches the session to build mode and the turn's setup with it.
pub(in crate::session) fn switch_to_build(
    state: &mut SessionState,
    setup: &mut TurnSetup,
    services: &Services,
) -> Result<(), SessionError> {
    if setup.agent.name == BUILD {
        return Ok(());
    }
    let model = setup.model.full_id();
    switch_mode(state, setup, services, BUILD, model)
}

/// Switches the session to the primary agent `mode` on `model` (stored, the editor told) and
/// the turn's setup with it, from the next step on.
pub(in crate::session) fn switch_mode(
    state: &mut SessionState,
    setup: &mut TurnSetup,
    services: &Services,
    mode: &str,
    model: String,
) -> Result<(), SessionError> {
    let offered_before = state.settings.view().external.is_some();
    state.settings.set_agent(mode)?;
    services.store.set_session_agent(&state.info.id, mode)?;
    services.bus.publish(Event::ModeChanged {
        session_id: state.info.id.clone(),
        mode: mode.into(),
    });
    // An external agent's commands go with its mode.
    if offered_before || state.settings.view().external.is_some() {
        services.bus.publish(Event::CommandsChanged {
            session_id: state.info.id.clone(),
            commands: state.settings.commands_with(&state.mcp),
        });
    }
    let choice = TurnChoice {
        agent: state.settings.agent(),
        model: Some(model),
        granted: Vec::new(),
    };
    let (port, cancel) = (setup.port.clone(), setup.cancel.clone());
    *setup = TurnSetup::new(state, services, choice, port, cancel)?;
    Ok(())
}
