//! What an external agent offers the person beside Tandem's own choices: its modes, its config
//! options (models, effort, …) and its slash commands, as it last said them, in Tandem's terms;
//! kept in a cell its connection updates and a session watches.

use std::sync::Mutex;

use agent_client_protocol::v1::schema::{
    AvailableCommand, AvailableCommandInput, SessionConfigKind, SessionConfigOption,
    SessionConfigOptionCategory, SessionConfigSelectOptions, SessionModeState, SessionUpdate,
};
use tokio::sync::watch;

use crate::bus::CommandView;

/// Where an option of the agent belongs among the editor's selectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionPlace {
    Mode,
    Model,
    ThoughtLevel,
    Other,
}

/// What an option holds: one of its values, or on or off.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionState {
    Select {
        current: String,
        values: Vec<OfferedValue>,
    },
    Toggle(bool),
}

/// A value a select option takes.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedValue {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
}

/// One option of the agent's session.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedOption {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub place: OptionPlace,
    pub state: OptionState,
    /// Set through `session/set_mode` (the agent gave modes, not a mode option).
    pub through_modes: bool,
}

/// A value chosen for one of the agent's options.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    Id(String),
    Toggle(bool),
}

/// Everything the agent offers now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentOffer {
    pub options: Vec<OfferedOption>,
    pub commands: Vec<CommandView>,
}

impl AgentOffer {
    pub fn is_empty(&self) -> bool {
        self.options.is_empty() && self.commands.is_empty()
    }

    pub fn option(&self, id: &str) -> Option<&OfferedOption> {
        self.options.iter().find(|o| o.id == id)
    }

    /// Takes a session's answer: its config options, and its modes as an option of their own
    /// unless a config option already carries them.
    fn take_session(
        &mut self,
        modes: Option<SessionModeState>,
        options: Option<Vec<SessionConfigOption>>,
    ) {
        self.options = options
            .unwrap_or_default()
            .into_iter()
            .map(option)
            .collect();
        let has_mode = self.options.iter().any(|o| o.place == OptionPlace::Mode);
        if let Some(modes) = modes.filter(|m| !has_mode && !m.available_modes.is_empty()) {
            self.options.insert(0, modes_option(modes));
        }
    }

    /// The agent's options replaced by `options` (its modes option kept).
    fn take_options(&mut self, options: Vec<SessionConfigOption>) {
        let modes = self.options.iter().find(|o| o.through_modes).cloned();
        self.options = options.into_iter().map(option).collect();
        if let Some(modes) = modes
            && !self.options.iter().any(|o| o.place == OptionPlace::Mode)
        {
            self.options.insert(0, modes);
        }
    }

    /// The agent is in mode `mode` now.
    fn take_mode(&mut self, mode: &str) {
        let carrier = (self.options.iter_mut())
            .filter(|o| o.place == OptionPlace::Mode)
            .find(|o| matches!(&o.state, OptionState::Select { values, .. } if values.iter().any(|v| v.id == mode)));
        if let Some(OfferedOption {
            state: OptionState::Select { current, .. },
            ..
        }) = carrier
        {
            *current = mode.to_owned();
        }
    }

    /// `value` is the option `id`'s now.
    pub fn chosen(&mut self, id: &str, value: &OptionValue) {
        let Some(option) = self.options.iter_mut().find(|o| o.id == id) else {
            return;
        };
        match (&mut option.state, value) {
            (OptionState::Select { current, .. }, OptionValue::Id(value)) => {
                *current = value.clone()
            }
            (OptionState::Toggle(on), OptionValue::Toggle(value)) => *on = *value,
            _ => {}
        }
    }
}

fn option(option: SessionConfigOption) -> OfferedOption {
    let place = match option.category {
        Some(SessionConfigOptionCategory::Mode) => OptionPlace::Mode,
        Some(SessionConfigOptionCategory::Model) => OptionPlace::Model,
        Some(SessionConfigOptionCategory::ThoughtLevel) => OptionPlace::ThoughtLevel,
        _ => OptionPlace::Other,
    };
    let state = match option.kind {
        SessionConfigKind::Select(select) => {
            let listed = match select.options {
                SessionConfigSelectOptions::Ungrouped(values) => values,
                SessionConfigSelectOptions::Grouped(groups) => {
                    groups.into_iter().flat_map(|g| g.options).collect()
                }
                _ => Vec::new(),
            };
            OptionState::Select {
                current: select.current_value.0.to_string(),
                values: listed
                    .into_iter()
                    .map(|v| OfferedValue {
                        id: v.value.0.to_string(),
                        name: v.name,
                        description: v.description,
                    })
                    .collect(),
            }
        }
        SessionConfigKind::Boolean(toggle) => OptionState::Toggle(toggle.current_value),
        _ => OptionState::Toggle(false),
    };
    OfferedOption {
        id: option.id.0.to_string(),
        name: option.name,
        description: option.description,
        place,
        state,
        through_modes: false,
    }
}

/// The agent's modes as one option, set through `session/set_mode`.
fn modes_option(modes: SessionModeState) -> OfferedOption {
    OfferedOption {
        id: "mode".into(),
        name: "Mode".into(),
        description: None,
        place: OptionPlace::Mode,
        state: OptionState::Select {
            current: modes.current_mode_id.0.to_string(),
            values: (modes.available_modes.into_iter())
                .map(|m| OfferedValue {
                    id: m.id.0.to_string(),
                    name: m.name,
                    description: m.description,
                })
                .collect(),
        },
        through_modes: true,
    }
}

fn command(command: AvailableCommand) -> CommandView {
    CommandView {
        name: command.name,
        description: command.description,
        hint: match command.input {
            Some(AvailableCommandInput::Unstructured(input)) => Some(input.hint),
            _ => None,
        },
    }
}

/// The agent's offer, updated by its connection; each change bumps a counter a session
/// watches.
pub struct OfferCell {
    offer: Mutex<AgentOffer>,
    changed: watch::Sender<u64>,
}

impl Default for OfferCell {
    fn default() -> Self {
        Self {
            offer: Mutex::default(),
            changed: watch::channel(0).0,
        }
    }
}

impl OfferCell {
    pub fn get(&self) -> AgentOffer {
        self.offer.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn change(&self, edit: impl FnOnce(&mut AgentOffer)) {
        edit(&mut self.offer.lock().unwrap_or_else(|p| p.into_inner()));
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn take_session(
        &self,
        modes: Option<SessionModeState>,
        options: Option<Vec<SessionConfigOption>>,
    ) {
        self.change(|offer| offer.take_session(modes, options));
    }

    pub fn take_options(&self, options: Vec<SessionConfigOption>) {
        self.change(|offer| offer.take_options(options));
    }

    pub fn chosen(&self, id: &str, value: &OptionValue) {
        self.change(|offer| offer.chosen(id, value));
    }

    /// Takes `update` when it is about the offer; whether it was.
    pub fn take(&self, update: &SessionUpdate) -> bool {
        match update {
            SessionUpdate::AvailableCommandsUpdate(update) => self.change(|offer| {
                offer.commands = (update.available_commands.iter().cloned())
                    .map(command)
                    .collect();
            }),
            SessionUpdate::ConfigOptionUpdate(update) => {
                self.take_options(update.config_options.clone())
            }
            SessionUpdate::CurrentModeUpdate(update) => {
                self.change(|offer| offer.take_mode(&update.current_mode_id.0))
            }
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{
        ConfigOptionUpdate, CurrentModeUpdate, SessionConfigSelectOption, SessionMode,
    };

    fn model_option(current: &str) -> SessionConfigOption {
        SessionConfigOption::select(
            "model",
            "Model",
            current.to_owned(),
            vec![
                SessionConfigSelectOption::new("fast", "Fast"),
                SessionConfigSelectOption::new("smart", "Smart"),
            ],
        )
        .category(SessionConfigOptionCategory::Model)
    }

    #[test]
    fn modes_become_an_option_and_follow_the_agent() {
        let cell = OfferCell::default();
        let modes = SessionModeState::new(
            "ask",
            vec![
                SessionMode::new("ask", "Ask"),
                SessionMode::new("yolo", "Yolo"),
            ],
        );
        cell.take_session(Some(modes), Some(vec![model_option("fast")]));
        let ids: Vec<String> = cell.get().options.iter().map(|o| o.id.clone()).collect();
        assert_eq!(ids, ["mode", "model"]);
        assert!(
            cell.take(&SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
                "yolo"
            )))
        );
        assert!(
            cell.take(&SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(
                vec![model_option("smart")]
            )))
        );
        let offer = cell.get();
        let current: Vec<&OptionState> = offer.options.iter().map(|o| &o.state).collect();
        assert!(matches!(current[0], OptionState::Select { current, .. } if current == "yolo"));
        assert!(matches!(current[1], OptionState::Select { current, .. } if current == "smart"));
        assert!(offer.options[0].through_modes);
        assert_eq!(*cell.changes().borrow(), 3);
    }
}
