//! Modes and config options: the session's primary agents as ACP modes (`session/set_mode`)
//! and as a `mode` config option beside `model`, the approval level (`approval`) and, for
//! models that can think harder, a `thought_level` option of their variants
//! (`session/set_config_option`).

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigSelectOption, SessionMode,
    SessionModeState, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::{AcpState, error};
use crate::id::SessionId;
use crate::permission::approval::Approval;
use crate::session::DEFAULT_VARIANT;
use crate::session::SessionView;

pub const MODE_OPTION: &str = "mode";
pub const MODEL_OPTION: &str = "model";
pub const THOUGHT_OPTION: &str = "thought_level";
pub const APPROVAL_OPTION: &str = "approval";

/// Air's kind of a mode or approval level, for a client that declared Air's bundle.
fn air_kind(air: bool, name: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    air.then(|| crate::acp::updates::air::kind(name))
}

pub fn modes(view: &SessionView, air: bool) -> SessionModeState {
    let modes = view
        .modes
        .iter()
        .map(|(name, description)| {
            SessionMode::new(name.clone(), title_case(name))
                .description(description.clone())
                .meta(air_kind(air, name))
        })
        .collect();
    SessionModeState::new(view.agent.clone(), modes)
}

/// The complete option list: the mode, then the model when one is configured.
pub fn config_options(view: &SessionView, air: bool) -> Vec<SessionConfigOption> {
    let modes: Vec<SessionConfigSelectOption> = view
        .modes
        .iter()
        .map(|(name, description)| {
            SessionConfigSelectOption::new(name.clone(), title_case(name))
                .description(description.clone())
                .meta(air_kind(air, name))
        })
        .collect();
    let mut options = vec![
        SessionConfigOption::select(MODE_OPTION, "Mode", view.agent.clone(), modes)
            .category(SessionConfigOptionCategory::Mode),
    ];
    // With an external agent answering, the model and thinking selectors are its own; Tandem's
    // (what a hand-over would run on) stay, out of their way.
    let external = view.external.is_some();
    let tandems = |category| match external {
        true => SessionConfigOptionCategory::Other("_tandem".into()),
        false => category,
    };
    if let Some(model) = &view.model {
        let models: Vec<SessionConfigSelectOption> = view
            .models
            .iter()
            .map(|(id, name)| SessionConfigSelectOption::new(id.clone(), name.clone()))
            .collect();
        let name = if external { "Tandem's model" } else { "Model" };
        options.push(
            SessionConfigOption::select(MODEL_OPTION, name, model.clone(), models)
                .category(tandems(SessionConfigOptionCategory::Model)),
        );
    }
    options.push(approval_option(view, air));
    if !view.variants.is_empty() {
        let mut levels = vec![
            SessionConfigSelectOption::new(DEFAULT_VARIANT, "Default")
                .description("The model's own default".to_owned()),
        ];
        levels.extend(
            view.variants
                .iter()
                .map(|v| SessionConfigSelectOption::new(v.clone(), title_case(v))),
        );
        let current = view
            .variant
            .clone()
            .unwrap_or_else(|| DEFAULT_VARIANT.into());
        options.push(
            SessionConfigOption::select(THOUGHT_OPTION, "Thinking", current, levels)
                .description("How hard the model thinks before it answers".to_owned())
                .category(tandems(SessionConfigOptionCategory::ThoughtLevel)),
        );
    }
    if let Some(external) = &view.external {
        let agent = title_case(&external.agent);
        options.extend(super::agent_options::options(external, &agent));
    }
    options
}

/// The approval levels, beside mode and model.
fn approval_option(view: &SessionView, air: bool) -> SessionConfigOption {
    let levels = Approval::ALL
        .map(|level| {
            SessionConfigSelectOption::new(level.id(), level.title())
                .description(level.description().to_owned())
                .meta(air_kind(air, level.id()))
        })
        .to_vec();
    SessionConfigOption::select(APPROVAL_OPTION, "Approval", view.approval.id(), levels)
        .description("How much goes through without asking you".to_owned())
        .category(SessionConfigOptionCategory::Other("_approval".into()))
}

fn title_case(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

pub async fn on_set_mode(
    state: Arc<AcpState>,
    request: SetSessionModeRequest,
    responder: Responder<SetSessionModeResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id.0.to_string());
    let result = state.manager().and_then(|m| {
        m.set_mode(&id, &request.mode_id.0)
            .map_err(error::from_session)
    });
    responder.respond_with_result(result.map(|_| SetSessionModeResponse::new()))
}

pub async fn on_set_config_option(
    state: Arc<AcpState>,
    request: SetSessionConfigOptionRequest,
    responder: Responder<SetSessionConfigOptionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id.0.to_string());
    if let Some(option) = super::agent_options::named(&state, &id, &request) {
        return set_agents_option(state, id, option, request.value, responder, cx);
    }
    let Some(value) = request.value.as_value_id().map(|v| v.0.to_string()) else {
        return responder.respond_with_error(Error::new(
            -32602,
            "Tandem's options take a value id, not a boolean",
        ));
    };
    let result = state.manager().and_then(|manager| {
        let view = match &*request.config_id.0 {
            MODE_OPTION => manager.set_mode(&id, &value),
            MODEL_OPTION => manager.choose_model(&id, &value),
            THOUGHT_OPTION => manager.choose_variant(&id, &value),
            APPROVAL_OPTION => manager.choose_approval(&id, &value),
            other => {
                return Err(Error::new(
                    -32602,
                    format!("there is no config option `{other}`; the options are `{MODE_OPTION}`, `{MODEL_OPTION}`, `{APPROVAL_OPTION}` and `{THOUGHT_OPTION}`"),
                ));
            }
        };
        view.map_err(error::from_session)
    });
    responder.respond_with_result(
        result.map(|view| SetSessionConfigOptionResponse::new(config_options(&view, state.air()))),
    )
}

/// Sets the external agent's `option`, answered once the agent has taken it (off the dispatch
/// loop).
fn set_agents_option(
    state: Arc<AcpState>,
    id: SessionId,
    option: String,
    value: agent_client_protocol::v1::schema::SessionConfigOptionValue,
    responder: Responder<SetSessionConfigOptionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let value = match super::agent_options::value(value) {
        Ok(value) => value,
        Err(e) => return responder.respond_with_error(e),
    };
    let manager = match state.manager() {
        Ok(manager) => manager,
        Err(e) => return responder.respond_with_error(e),
    };
    cx.spawn(async move {
        match manager.choose_agent_option(&id, &option, value).await {
            Ok(view) => responder.respond(SetSessionConfigOptionResponse::new(config_options(
                &view,
                state.air(),
            ))),
            Err(e) => responder.respond_with_error(error::from_session(e)),
        }
    })
}
