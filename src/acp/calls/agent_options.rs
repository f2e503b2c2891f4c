//! The options of the external agent a session's mode runs, beside Tandem's own: each offered
//! as `<agent>:<option>` under the agent's category (its modes under their own, since Tandem's
//! `mode` picks the agent); the editor's choice of one named and read.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    SessionConfigKind, SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelect, SessionConfigSelectOption, SetSessionConfigOptionRequest,
};

use crate::acp::AcpState;
use crate::id::SessionId;
use crate::remote::{OptionPlace, OptionState, OptionValue};
use crate::session::ExternalChoices;

/// The agent's options as the editor lists them, named after `agent` (its name as a title).
pub fn options(external: &ExternalChoices, agent: &str) -> Vec<SessionConfigOption> {
    external
        .options
        .iter()
        .map(|option| {
            let kind = match &option.state {
                OptionState::Select { current, values } => {
                    SessionConfigKind::Select(SessionConfigSelect::new(
                        current.clone(),
                        values
                            .iter()
                            .map(|v| {
                                SessionConfigSelectOption::new(v.id.clone(), v.name.clone())
                                    .description(v.description.clone())
                            })
                            .collect::<Vec<_>>(),
                    ))
                }
                OptionState::Toggle(on) => SessionConfigKind::Boolean(
                    agent_client_protocol::v1::schema::SessionConfigBoolean::new(*on),
                ),
            };
            let category = match option.place {
                OptionPlace::Model => SessionConfigOptionCategory::Model,
                OptionPlace::ThoughtLevel => SessionConfigOptionCategory::ThoughtLevel,
                OptionPlace::Mode => SessionConfigOptionCategory::Other("_agent_mode".into()),
                OptionPlace::Other => SessionConfigOptionCategory::Other("_agent".into()),
            };
            SessionConfigOption::new(
                format!("{}:{}", external.agent, option.id),
                format!("{agent} {}", option.name.to_lowercase()),
                kind,
            )
            .description(option.description.clone())
            .category(category)
        })
        .collect()
}

/// The agent's own option `request` names (`<agent>:<option>`, the agent the session's mode
/// runs now), if it names one.
pub fn named(
    state: &AcpState,
    id: &SessionId,
    request: &SetSessionConfigOptionRequest,
) -> Option<String> {
    let (agent, option) = request.config_id.0.split_once(':')?;
    let view = state.manager().ok()?.view(id).ok()?;
    (view.agent == agent).then(|| option.to_owned())
}

/// The value the editor chose, in Tandem's terms.
pub fn value(value: SessionConfigOptionValue) -> Result<OptionValue, Error> {
    match value {
        SessionConfigOptionValue::Boolean { value } => Ok(OptionValue::Toggle(value)),
        other => match other.as_value_id() {
            Some(value) => Ok(OptionValue::Id(value.0.to_string())),
            None => Err(Error::new(
                -32602,
                "this option takes a value id or a boolean",
            )),
        },
    }
}
