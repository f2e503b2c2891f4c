//! The `acp` block of an agent: another ACP agent (Claude Code's adapter, Codex, Gemini CLI,
//! OpenCode, another Tandem) that Tandem starts and drives as that agent's subagent.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How to start an external ACP agent and how long to wait for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcpAgentConfig {
    /// The program and its arguments: `["claude-agent-acp"]`, `["gemini", "--experimental-acp"]`.
    pub command: Vec<String>,
    /// Variables added to the agent's environment.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    /// Seconds to wait for it to start (`initialize` and opening its session). Default 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_timeout: Option<u64>,
    /// Seconds a prompt may go without a word from the agent before it counts as hung.
    /// Default 600.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence_timeout: Option<u64>,
    /// Seconds an agent's process may sit idle before Tandem ends it. Default 300.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout: Option<u64>,
}

impl AcpAgentConfig {
    pub fn startup_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.startup_timeout.unwrap_or(30))
    }

    pub fn silence_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.silence_timeout.unwrap_or(600))
    }

    pub fn idle_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.idle_timeout.unwrap_or(300))
    }

    /// The program's name, for messages: `claude-agent-acp`.
    pub fn program(&self) -> &str {
        self.command.first().map_or("", String::as_str)
    }
}
