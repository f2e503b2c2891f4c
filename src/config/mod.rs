//! The `tandem.json` schema: every key a user may write, typed, close to OpenCode's shape so
//! configs carry over. Loading and merging live in `load`; later layers give keys their effect.

mod acp_agent;
mod code;
mod custom_tool;
mod hooks;
mod limits;
pub(crate) mod load;
pub mod markdown;
pub mod plugins;
pub mod restrict;
pub mod runs;
mod standing;
mod websearch;

use std::path::PathBuf;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use acp_agent::AcpAgentConfig;
pub use code::{DiagnosticsConfig, FormatterConfig, LspServerConfig, Switchable};
pub use custom_tool::CustomToolConfig;
pub use hooks::{HookCommand, HookMatcher, HooksConfig};
pub use limits::{GoalConfig, LimitsConfig};
pub use load::{
    ConfigError, LoadedConfig, load, load_as, load_workspace, project_file, set_command_line,
};
pub use restrict::{Brought, BroughtKind};
pub use standing::{Standing, digest_of, hex};
pub use websearch::{SearchService, WebSearchConfig};

/// The whole configuration, after merging every file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Config {
    /// The JSON Schema the editor validates against; ignored by Tandem.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The default model, `provider/model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// A cheaper model for titles and summaries, `provider/model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small_model: Option<String>,
    /// The primary agent new sessions start in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_agent: Option<String>,
    #[serde(default)]
    pub provider: IndexMap<String, ProviderConfig>,
    #[serde(default)]
    pub agent: IndexMap<String, AgentConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<PermissionConfig>,
    #[serde(default)]
    pub mcp: IndexMap<String, McpConfig>,
    #[serde(default)]
    pub command: IndexMap<String, CommandConfig>,
    /// Extra instruction files (paths or globs) added to every system prompt.
    #[serde(default)]
    pub instructions: Vec<String>,
    /// How a long session keeps within its model's window.
    #[serde(default)]
    pub compaction: CompactionConfig,
    /// Record the project's files before each step that may change them, so a turn can be
    /// undone; default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<bool>,
    /// `tandem serve`'s settings.
    #[serde(default)]
    pub server: ServerConfig,
    /// Keep running the turn after the person rejects a call or a rule denies one (by default
    /// the turn ends after that step, as in OpenCode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continue_loop_on_deny: Option<bool>,
    /// The OS sandbox the `bash` commands Tandem runs (and MCP servers that ask for it) start
    /// in: what they may write and whether they may use the network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxConfig>,
    /// How many commands a session may run in the background at once (`bash` with
    /// `run_in_background`); default 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_jobs: Option<usize>,
    /// Ceilings on what the agent spends: money per session, per day and per delegation
    /// tree, and wall time per turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<LimitsConfig>,
    /// Models (`provider/model`) tried in order when the session's model answers a usage
    /// limit, an overload or a server error after its retries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fallback: Vec<String>,
    /// What a `/goal` may use before it stops unmet (turns, tokens, money, wall time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<GoalConfig>,
    /// The search service the `websearch` tool asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub websearch: Option<WebSearchConfig>,
    /// Language servers whose errors follow each edit (built-ins found on `PATH`, overridden
    /// or added by name); `false` turns them off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lsp: Option<Switchable<LspServerConfig>>,
    /// Formatters run on each file a tool changes (built-ins the project shows it uses,
    /// overridden or added by name); `false` turns them off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formatter: Option<Switchable<FormatterConfig>>,
    /// How long an edit waits for the language server's errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<DiagnosticsConfig>,
    /// Tools defined by a command, by name (more in `.tandem/tool/*.json`).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub tool: IndexMap<String, CustomToolConfig>,
    /// Commands run around the agent's work (Claude Code's events and JSON). A project's
    /// hooks run only once the person approved them. Read per file by the `hook` layer (whose
    /// each file is matters), so here only its shape is described.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<HooksConfig>")]
    pub hooks: Option<serde_json::Value>,
}

/// `"sandbox": {...}`: every key optional; a project's or an agent's keys override the ones
/// below them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SandboxConfig {
    /// `workspace-write` (default): write only in the project, the temp dir and `writable`;
    /// `read-only`: write nowhere; `off`: no sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SandboxMode>,
    /// Allow TCP connections and listening sockets (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<bool>,
    /// More directories commands may write in (absolute, `~/…`, or relative to the project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writable: Option<Vec<String>>,
    /// Refuse to run commands where the platform has no sandbox, instead of warning once and
    /// running them unsandboxed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Named Unix sockets (or folders of them) commands may connect to beyond the project's
    /// own: the Docker socket, an SSH agent. Others are refused (a daemon could write for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unix_sockets: Option<Vec<String>>,
}

/// How much a sandboxed command may write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    #[default]
    WorkspaceWrite,
    ReadOnly,
    Off,
}

/// `"server": {...}`: the control server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerConfig {
    /// The bearer token every request must carry (required to listen beyond loopback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Web origins (`https://tool.example`) whose pages may call the server; others are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origins: Option<Vec<String>>,
}

/// `"compaction": {...}`: OpenCode's keys; every one optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CompactionConfig {
    /// Compact on its own when the window is (about to be) full; default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<bool>,
    /// Clear old tool outputs from requests; default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prune: Option<bool>,
    /// Tokens kept free below `limit.input`; default min(20,000, the model's output maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved: Option<u64>,
    /// How many recent user turns a compaction keeps verbatim; default 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_turns: Option<u32>,
    /// The token budget of those kept turns; default a quarter of the usable window,
    /// between 2,000 and 8,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preserve_recent_tokens: Option<u64>,
}

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProviderApi {
    /// OpenAI Chat Completions (also OpenRouter, Ollama, llama.cpp, vLLM, LM Studio).
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI's Responses API (the default for OpenAI's own reasoning and codex models).
    Responses,
    /// Replays a JSON script with no network.
    Scripted,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderConfig {
    /// The wire format; defaults by provider id (`anthropic` → anthropic, else openai).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ProviderApi>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub options: ProviderOptions,
    #[serde(default)]
    pub models: IndexMap<String, ModelConfig>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderOptions {
    #[serde(rename = "baseURL", default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(rename = "apiKey", default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(default)]
    pub headers: IndexMap<String, String>,
    /// Request timeout in milliseconds for the first byte of an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// How long (ms) a streaming answer may go without a byte before the attempt fails
    /// (default 60,000).
    #[serde(
        rename = "chunkTimeout",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub chunk_timeout: Option<u64>,
    /// The most (ms) one model request may take until its answer starts, every retry and
    /// wait included (default 600,000).
    #[serde(
        rename = "totalTimeout",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_timeout: Option<u64>,
    /// How many times a failed request (429, 5xx, connection error) is retried.
    #[serde(
        rename = "maxRetries",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub max_retries: Option<u32>,
    /// The first retry's delay in milliseconds when the server gives none; doubles each time.
    #[serde(
        rename = "retryDelay",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub retry_delay: Option<u64>,
    /// Prompt caching: Anthropic `cache_control` breakpoints, OpenAI's `prompt_cache_key`;
    /// default true (set false for a server that refuses the extra field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<bool>,
    /// Azure OpenAI's `api-version` (default 2024-10-21); the model's id is its deployment.
    #[serde(
        rename = "apiVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub api_version: Option<String>,
    /// For `api: "scripted"`: the JSON script to replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelConfig {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The id sent to the API, when it differs from the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<ModelLimit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<ModelCost>,
    /// How hard it thinks, by name: request options merged into each request made with that
    /// variant (`{"high": {"reasoning": {"effort": "high"}}}`); added to the built-in ones.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variants: IndexMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelLimit {
    /// The context window in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<u64>,
    /// The most input tokens one request may have, when the provider limits it apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    /// The most tokens one answer may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
}

/// Prices in USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelCost {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentMode {
    Primary,
    Subagent,
    All,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AgentConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AgentMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model variant (how hard it thinks) this agent uses unless the person chose one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The most model calls one prompt may make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<PermissionConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_budget: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callable_by_subagents: Option<bool>,
    /// This agent's sandbox keys, over the config's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxConfig>,
    /// Another ACP agent that answers as this agent (a subagent Tandem drives).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acp: Option<AcpAgentConfig>,
    /// Where this agent works as a subagent: `worktree`, a git worktree of its own merged
    /// back when it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
}

/// Where a subagent works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// A git worktree of its own, on a new branch from the caller's state.
    Worktree,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PermissionAction {
    Allow,
    Deny,
    Ask,
}

/// `"permission": "ask"` or `{"edit": "deny", "bash": {"git status *": "allow"}}`, in key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PermissionConfig {
    All(PermissionAction),
    ByTool(IndexMap<String, PermissionRule>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PermissionRule {
    Action(PermissionAction),
    ByPattern(IndexMap<String, PermissionAction>),
}

/// An MCP server from the config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum McpConfig {
    Local {
        command: Vec<String>,
        #[serde(default)]
        environment: IndexMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        enabled: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        /// Start the server in the session's sandbox (`true`), or in one with these keys
        /// over the session's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sandbox: Option<McpSandbox>,
    },
    Remote {
        url: String,
        #[serde(default)]
        headers: IndexMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        enabled: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        /// Logging in when the server asks (OAuth): `false` never does; a client registered
        /// with its authorization server beforehand is given by its id (default: Tandem
        /// registers itself).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        oauth: Option<McpOAuth>,
    },
}

/// A remote MCP server's `"oauth"`: on/off, or the client to log in as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum McpOAuth {
    On(bool),
    Client {
        #[serde(rename = "clientId")]
        client_id: String,
        #[serde(
            rename = "clientSecret",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        client_secret: Option<String>,
        /// The scopes to ask for, space-separated (default: what the server names).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<String>,
    },
}

/// An MCP server's `"sandbox"`: on/off, or its own keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum McpSandbox {
    On(bool),
    With(SandboxConfig),
}

/// A slash command from the config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommandConfig {
    pub template: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtask: Option<bool>,
    /// What the command's arguments are, shown by the editor as a hint (Claude Code's
    /// `argument-hint`).
    #[serde(
        default,
        alias = "argument-hint",
        skip_serializing_if = "Option::is_none"
    )]
    pub input: Option<String>,
}
