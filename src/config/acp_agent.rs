//! The `acp` block of an agent: another ACP agent (Claude Code's adapter, Codex, Gemini CLI,
//! OpenCode, another Tandem) that Tandem starts and drives, as a subagent or in front of the
//! editor; and the folders of its own it may write inside Tandem's sandbox.

use std::path::{Path, PathBuf};

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
    /// Folders (or files) of its own the agent's process may write besides the workspace and
    /// the temp dir: its state and caches (`~` is the home folder). The well-known agents
    /// have theirs by default (Claude Code `~/.claude`, Codex `~/.codex`, Gemini CLI
    /// `~/.gemini`, OpenCode its XDG folders, Tandem its data dir).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<String>,
    /// The agent's own mode to set on each session it opens (its `session/set_mode` id), as
    /// one of its modes may suit being held by Tandem. Codex, whose own sandbox cannot start
    /// inside Tandem's, is set to `agent-full-access` by default when Tandem holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Whether the agent reads and writes files through Tandem (ACP's `fs/*`, each under
    /// Tandem's rules) rather than by itself (held by Tandem's sandbox). Default true, except
    /// for Gemini CLI, whose ACP client takes a file Tandem reports missing for a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_through_tandem: Option<bool>,
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

    /// The mode to set on the agent's sessions: the configured one, else the default of the
    /// agent it is known to be when Tandem's sandbox holds it (`confined`).
    pub fn mode_for(&self, confined: bool) -> Option<String> {
        if self.mode.is_some() {
            return self.mode.clone();
        }
        let program = Path::new(self.program())
            .file_name()
            .and_then(|n| n.to_str());
        match program {
            // Codex's own sandbox (bubblewrap) cannot start inside Tandem's: Tandem's holds it.
            Some("codex-acp") if confined => Some("agent-full-access".into()),
            _ => None,
        }
    }

    /// Whether Tandem offers the agent its file methods (`fs/*`).
    pub fn offers_files(&self) -> bool {
        let program = Path::new(self.program())
            .file_name()
            .and_then(|n| n.to_str());
        self.files_through_tandem
            .unwrap_or(program != Some("gemini"))
    }

    /// What the agent's process may write of its own: its `state`, then the defaults of the
    /// agent it is known to be (by its program's name), where its environment puts them.
    pub fn state_dirs(&self) -> Vec<PathBuf> {
        let var = |name: &str| {
            (self.env.get(name).map(PathBuf::from))
                .or_else(|| std::env::var_os(name).map(PathBuf::from))
                .filter(|p| !p.as_os_str().is_empty())
        };
        let home = var("HOME");
        let in_home = |rest: &str| home.as_ref().map(|h| h.join(rest));
        let mut dirs: Vec<PathBuf> = (self.state.iter())
            .filter_map(|s| match s.strip_prefix("~/") {
                Some(rest) => in_home(rest),
                None => Some(PathBuf::from(s)),
            })
            .collect();
        let program = Path::new(self.program())
            .file_name()
            .and_then(|n| n.to_str());
        let defaults: Vec<Option<PathBuf>> = match program.unwrap_or_default() {
            "claude-agent-acp" | "claude-code-acp" | "claude" => vec![
                var("CLAUDE_CONFIG_DIR").or_else(|| in_home(".claude")),
                in_home(".claude.json"),
                in_home(".cache/claude-cli-nodejs"),
            ],
            "codex-acp" | "codex" => vec![var("CODEX_HOME").or_else(|| in_home(".codex"))],
            "gemini" => vec![in_home(".gemini")],
            "opencode" => ["share", "config", "cache", "state"]
                .iter()
                .map(|kind| xdg(kind, &var, &in_home).map(|d| d.join("opencode")))
                .collect(),
            "tandem" => vec![
                var("TANDEM_DATA_DIR")
                    .or_else(|| xdg("share", &var, &in_home).map(|d| d.join("tandem"))),
            ],
            _ => Vec::new(),
        };
        dirs.extend(defaults.into_iter().flatten());
        dirs
    }
}

/// An XDG base folder (`share` data, `config`, `cache`, `state`) as `var` and `home` give it.
fn xdg(
    kind: &str,
    var: &dyn Fn(&str) -> Option<PathBuf>,
    home: &dyn Fn(&str) -> Option<PathBuf>,
) -> Option<PathBuf> {
    let (name, default) = match kind {
        "share" => ("XDG_DATA_HOME", ".local/share"),
        "config" => ("XDG_CONFIG_HOME", ".config"),
        "cache" => ("XDG_CACHE_HOME", ".cache"),
        _ => ("XDG_STATE_HOME", ".local/state"),
    };
    var(name).or_else(|| home(default))
}
