//! A session's choices the editor can change at any time, even mid-turn: its mode (primary
//! agent), model, variant and approval level. Shared between the session's handle and its actor; the next turn uses them.

use std::sync::{Arc, Mutex};

use super::error::SessionError;
use crate::agent::{AgentInfo, Agents};
use crate::command::Commands;
use crate::config::LoadedConfig;
use crate::permission::{Layers, Rule};
use crate::provider::resolve::{available_models, default_model_name, model_options};
use crate::provider::variants::ModelOptions;

/// What the editor shows about a session: its mode and model and the choices for each.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionView {
    pub agent: String,
    /// `(name, description)` of every mode.
    pub modes: Vec<(String, Option<String>)>,
    /// `provider/model` in use, if any is configured.
    pub model: Option<String>,
    /// `(provider/model, display name)` of every configured model.
    pub models: Vec<(String, String)>,
    /// The variant (how hard the model thinks) the next turn uses; None is the model's default.
    pub variant: Option<String>,
    /// The model's variants, by name; empty when it has no control over thinking.
    pub variants: Vec<String>,
    /// How much goes through without asking.
    pub approval: crate::permission::approval::Approval,
    /// The slash commands the session offers.
    pub commands: Vec<CommandView>,
    /// The sandbox the session's commands get (what the kernel holds of it is worked out and
    /// said after the session's answer, off the path that opens it).
    pub sandbox: crate::sandbox::Policy,
    /// The session's goal as editors read it (`_meta.goal`), when it has one.
    pub goal: Option<serde_json::Value>,
    /// What the external agent the session's mode runs offers, while it runs.
    pub external: Option<crate::session::offered::ExternalChoices>,
}

pub use crate::bus::CommandView;

/// The variant name that means "the model's own default".
pub const DEFAULT_VARIANT: &str = "default";

pub(in crate::session) struct Settings {
    pub config: Arc<LoadedConfig>,
    pub agents: Agents,
    /// Its slash commands (read again when the skill folders change).
    commands: Mutex<Arc<Commands>>,
    choice: Mutex<Choice>,
    /// The external agent answering the session's turns, while one runs.
    pub offered: crate::session::offered::Offered,
}

#[derive(Clone)]
struct Choice {
    agent: AgentInfo,
    model: Option<String>,
    /// The variant the person chose (`None`: the agent's, else the model's default).
    variant: Option<String>,
    /// Rules this session adds last (a child's denials of todos and delegation).
    extra_rules: Vec<Rule>,
    /// The rules of every caller above this (child) session, which bound its own.
    callers: Vec<Vec<Rule>>,
    /// Its caller's sandbox, which bounds its own (a plan session's children stay read-only).
    ceiling: Option<crate::sandbox::Policy>,
    /// How much goes through without asking (a child's is its caller's).
    approval: crate::permission::approval::Approval,
    /// What the editor appends to the agent's system prompt.
    client_prompt: Option<String>,
}

impl Settings {
    pub fn new(config: Arc<LoadedConfig>, agents: Agents, commands: Commands) -> Self {
        let choice = Choice {
            agent: agents.default_agent(),
            model: None,
            variant: None,
            extra_rules: Vec::new(),
            callers: Vec::new(),
            ceiling: None,
            approval: Default::default(),
            client_prompt: None,
        };
        Self {
            config,
            agents,
            commands: Mutex::new(Arc::new(commands)),
            choice: Mutex::new(choice),
            offered: Default::default(),
        }
    }

    pub fn commands(&self) -> Arc<Commands> {
        self.commands
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn set_commands(&self, commands: Commands) {
        *self.commands.lock().unwrap_or_else(|p| p.into_inner()) = Arc::new(commands);
    }

    fn choice(&self) -> Choice {
        self.choice
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The agent the next turn runs.
    pub fn agent(&self) -> AgentInfo {
        self.choice().agent
    }

    /// The model the next turn uses: the session's choice, the agent's, or the config's.
    pub fn model(&self) -> Option<String> {
        let choice = self.choice();
        choice
            .model
            .or(choice.agent.model)
            .or_else(|| default_model_name(&self.config))
    }

    pub fn view(&self) -> SessionView {
        let model = self.model();
        let options = model
            .as_deref()
            .map(|name| model_options(&self.config, name))
            .unwrap_or_default();
        let variants: Vec<String> = options.variants.keys().cloned().collect();
        let variant = self.variant_among(&self.choice().agent, &options);
        let agent = self.choice().agent.name;
        let offer = self.offered.offer_of(&agent);
        let commands: Vec<CommandView> = self
            .commands()
            .iter()
            .map(|c| CommandView {
                name: c.name.clone(),
                description: c.description.clone(),
                hint: c.hint.clone(),
            })
            .collect();
        let commands = match &offer {
            Some(offer) => {
                crate::session::offered::with_agent_commands(commands, &agent, &offer.commands)
            }
            None => commands,
        };
        SessionView {
            variant,
            variants,
            approval: self.choice().approval,
            agent: agent.clone(),
            modes: self
                .agents
                .modes()
                .iter()
                .map(|a| (a.name.clone(), a.description.clone()))
                .collect(),
            models: available_models(&self.config, model.as_deref()),
            model,
            commands,
            sandbox: self.sandbox_policy(),
            goal: None,
            external: offer.map(|offer| crate::session::offered::ExternalChoices {
                agent,
                options: offer.options,
            }),
        }
    }

    /// The session's slash commands with its MCP servers' prompts: the whole list the editor
    /// is told.
    pub fn commands_with(&self, mcp: &crate::mcp::McpSet) -> Vec<CommandView> {
        let mut commands = self.view().commands;
        commands.extend(prompt_commands(mcp));
        commands
    }

    /// The session's sandbox as its agent and config give it (the project root does not matter
    /// for what is said of it).
    fn sandbox_policy(&self) -> crate::sandbox::Policy {
        let mut config = crate::sandbox::layered(
            self.choice().agent.sandbox.as_ref(),
            self.config.config.sandbox.as_ref(),
        );
        if self.choice().approval.read_only() {
            config.mode = Some(crate::sandbox::SandboxMode::ReadOnly);
        }
        self.bounded(crate::sandbox::Policy::resolve(
            Some(&config),
            std::path::Path::new("/"),
        ))
    }

    /// The context window of the model the next turn uses, when known.
    pub fn context_window(&self) -> Option<u64> {
        crate::provider::resolve(&self.config, self.model().as_deref())
            .ok()
            .and_then(|m| m.limit.context)
    }

    /// How much goes through without asking.
    pub fn approval(&self) -> crate::permission::approval::Approval {
        self.choice().approval
    }

    /// What the editor appends to the agent's system prompt.
    pub fn client_prompt(&self) -> Option<String> {
        self.choice().client_prompt
    }

    pub fn set_client_prompt(&self, prompt: Option<String>) {
        self.choice
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .client_prompt = prompt;
    }

    pub fn set_approval(&self, approval: crate::permission::approval::Approval) {
        self.choice
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .approval = approval;
    }

    /// Switches to the primary agent `name`.
    pub fn set_agent(&self, name: &str) -> Result<(), SessionError> {
        let agent = self
            .agents
            .get(name)
            .filter(|a| a.is_primary() && !a.hidden)
            .cloned()
            .ok_or_else(|| SessionError::UnknownMode {
                name: name.to_owned(),
                available: self.agents.modes().iter().map(|a| a.name.clone()).collect(),
            })?;
        self.choice.lock().unwrap_or_else(|p| p.into_inner()).agent = agent;
        Ok(())
    }

    /// Makes this a subagent's session: its agent (any mode), model, added rules, and the
    /// rules of the callers above it with its caller's sandbox, which bound its own.
    pub fn delegate_to(
        &self,
        agent: AgentInfo,
        model: Option<String>,
        extra_rules: Vec<Rule>,
        (callers, ceiling, approval): (
            Vec<Vec<Rule>>,
            crate::sandbox::Policy,
            crate::permission::approval::Approval,
        ),
    ) {
        let mut choice = self.choice.lock().unwrap_or_else(|p| p.into_inner());
        choice.agent = agent;
        choice.model = model;
        choice.extra_rules = extra_rules;
        choice.callers = callers;
        choice.ceiling = Some(ceiling);
        choice.approval = approval;
    }

    /// `policy` held inside the caller's sandbox, for a subagent's session.
    pub fn bounded(&self, policy: crate::sandbox::Policy) -> crate::sandbox::Policy {
        match &self.choice().ceiling {
            Some(ceiling) => policy.within(ceiling),
            None => policy,
        }
    }

    /// Every rule a turn of `agent` works under in this session: the agent's rules, then the
    /// rules the session adds; bounded by its callers' rules when it is a subagent's session.
    pub fn rules_for(&self, agent: &AgentInfo) -> Layers {
        let choice = self.choice();
        let mut own = agent.rules(&self.config.config);
        own.extend(choice.extra_rules);
        Layers {
            own,
            callers: choice.callers,
        }
    }

    /// The variant a turn of `agent` on `model` uses: the person's choice, else the agent's,
    /// when `model` has it; None is the model's default.
    pub fn variant_for(
        &self,
        agent: &AgentInfo,
        model: &crate::provider::ResolvedModel,
    ) -> Option<String> {
        self.variant_among(agent, &model.options)
    }

    fn variant_among(&self, agent: &AgentInfo, options: &ModelOptions) -> Option<String> {
        let choice = self.choice();
        [choice.variant, agent.variant.clone()]
            .into_iter()
            .flatten()
            .find(|v| options.variants.contains_key(v))
    }

    /// Chooses the variant (`default`: none, the model's own); `checked` requires the current
    /// model to have it.
    pub fn set_variant(&self, name: &str, checked: bool) -> Result<(), SessionError> {
        let variant = (name != DEFAULT_VARIANT).then(|| name.to_owned());
        if checked && let Some(variant) = &variant {
            let model = self.model().unwrap_or_default();
            let options = model_options(&self.config, &model);
            if !options.variants.contains_key(variant) {
                let mut available: Vec<String> = vec![DEFAULT_VARIANT.to_owned()];
                available.extend(options.variants.keys().cloned());
                return Err(SessionError::UnknownVariant {
                    name: name.to_owned(),
                    model,
                    available,
                });
            }
        }
        self.choice
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .variant = variant;
        Ok(())
    }

    /// Chooses the model; `checked` requires it to be one of the configured ones.
    pub fn set_model(&self, model: &str, checked: bool) -> Result<(), SessionError> {
        if checked {
            let models = available_models(&self.config, self.model().as_deref());
            if !models.iter().any(|(m, _)| m == model) {
                return Err(SessionError::UnknownModel {
                    name: model.to_owned(),
                    available: models.into_iter().map(|(m, _)| m).collect(),
                });
            }
        }
        self.choice.lock().unwrap_or_else(|p| p.into_inner()).model = Some(model.to_owned());
        Ok(())
    }
}

/// The MCP servers' prompts as slash commands (`server:prompt`, hinted by their arguments).
pub(in crate::session) fn prompt_commands(mcp: &crate::mcp::McpSet) -> Vec<CommandView> {
    mcp.prompts()
        .into_iter()
        .map(|p| CommandView {
            name: p.name,
            description: p.description,
            hint: (!p.arguments.is_empty()).then(|| p.arguments.join(" ")),
        })
        .collect()
}
