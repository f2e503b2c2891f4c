//! The other agents Tandem knows by name (`tandem acp --agent claude`): each one's ACP command,
//! run as the primary agent in front of the editor when named and not configured otherwise.

use super::AgentInfo;
use crate::config::{AcpAgentConfig, AgentMode};

/// The names Tandem knows, for messages.
pub const NAMES: [&str; 4] = ["claude", "codex", "gemini", "opencode"];

/// The agent Tandem knows as `name`, if it knows one.
pub fn well_known(name: &str) -> Option<AgentInfo> {
    let (description, command): (&str, &[&str]) = match name {
        "claude" => (
            "Claude Code, through its ACP adapter",
            &["claude-agent-acp"],
        ),
        "codex" => ("Codex, through its ACP adapter", &["codex-acp"]),
        "gemini" => ("Gemini CLI", &["gemini", "--acp"]),
        "opencode" => ("OpenCode", &["opencode", "acp"]),
        _ => return None,
    };
    Some(AgentInfo {
        name: name.to_owned(),
        description: Some(description.to_owned()),
        mode: AgentMode::Primary,
        acp: Some(AcpAgentConfig {
            command: command.iter().map(|w| (*w).to_owned()).collect(),
            env: Default::default(),
            startup_timeout: None,
            silence_timeout: None,
            idle_timeout: None,
            state: Vec::new(),
            mode: None,
            files_through_tandem: None,
        }),
        ..AgentInfo::default()
    })
}
