//! Agents: who answers a prompt, with which prompt, model, sampling and step budget. Only
//! the default `build` agent exists so far, shaped by the config's `agent.build` block.

mod prompt;

use crate::config::Config;

pub use prompt::system_prompt;

/// The agent a session starts with when the config names none.
pub const DEFAULT_AGENT: &str = "build";

/// One agent, resolved from the built-ins and the config.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentInfo {
    pub name: String,
    /// Replaces the built-in system prompt when set.
    pub prompt: Option<String>,
    /// `provider/model`, overriding the config's default model.
    pub model: Option<String>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// The most model calls one prompt may make; `None` is unbounded.
    pub steps: Option<u32>,
}

impl AgentInfo {
    /// The primary agent for new sessions: `default_agent` or `build`, with its config applied.
    pub fn default_for(config: &Config) -> Self {
        let name = config
            .default_agent
            .clone()
            .unwrap_or_else(|| DEFAULT_AGENT.to_owned());
        let mut agent = Self {
            name,
            prompt: None,
            model: None,
            temperature: None,
            top_p: None,
            steps: None,
        };
        if let Some(overrides) = config.agent.get(&agent.name) {
            agent.prompt = overrides.prompt.clone();
            agent.model = overrides.model.clone();
            agent.temperature = overrides.temperature;
            agent.top_p = overrides.top_p;
            agent.steps = overrides.steps;
        }
        agent
    }
}
