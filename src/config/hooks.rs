//! `"hooks": {...}`: commands run around the agent's work, in Claude Code's shape (events,
//! matchers, command hooks) so a person's hook scripts carry over. The `hook` layer runs them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The hooks of each event, by Claude Code's event names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct HooksConfig {
    /// Before a tool call runs (after the model asked for it): may block it, answer its
    /// permission question, or change its input (checked by the rules again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre_tool_use: Vec<HookMatcher>,
    /// After a tool call succeeded: may tell the model more about its result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub post_tool_use: Vec<HookMatcher>,
    /// When the person sends a prompt: may block it or add context.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_prompt_submit: Vec<HookMatcher>,
    /// When the agent is about to end its turn: may ask it to go on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<HookMatcher>,
    /// When a subagent is about to end its task: may ask it to go on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subagent_stop: Vec<HookMatcher>,
    /// Before a session's first turn in this process: may add context.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_start: Vec<HookMatcher>,
    /// When a session closes or Tandem exits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_end: Vec<HookMatcher>,
    /// Before the conversation is compacted (`manual` or `auto` as the matcher).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre_compact: Vec<HookMatcher>,
    /// When Tandem asks the person something.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notification: Vec<HookMatcher>,
}

/// The hooks that run when the matcher matches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookMatcher {
    /// A regular expression over the tool's name (Tandem's or Claude Code's: `bash|edit`,
    /// `Bash|Edit`, `mcp__github__.*`); empty or `*` matches every call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    pub hooks: Vec<HookCommand>,
}

/// One hook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookCommand {
    /// `command` (the only kind Tandem runs; others are reported and skipped).
    #[serde(rename = "type")]
    pub kind: String,
    /// A shell line run with `sh -c` in the project, the event as JSON on stdin.
    #[serde(default)]
    pub command: String,
    /// Seconds it may run (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Run it in the session's sandbox (default true); `false` for a hook that must write
    /// outside the project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<bool>,
}
