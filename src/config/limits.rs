//! `"limits"`, `"fallback"` and `"goal"`: the ceilings a person sets on what the agent spends
//! (money per session, per day and per delegation tree; wall time per turn), the models tried
//! in order when the chosen one keeps failing, and what a goal may use by default.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `"limits": {...}`: every ceiling optional; money in the catalog's currency (US dollars for
/// the built-in prices), counted from the reported usage with cache reads and writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// The most one session may spend, its subagents' work included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_cost: Option<f64>,
    /// The most every session together may spend in a day (local time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_cost: Option<f64>,
    /// The most a top-level session and all its subagents, at any depth, may spend together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree_cost: Option<f64>,
    /// The longest one turn may run, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_seconds: Option<u64>,
}

impl LimitsConfig {
    /// Whether any money ceiling is set.
    pub fn has_cost(&self) -> bool {
        self.session_cost.is_some() || self.day_cost.is_some() || self.tree_cost.is_some()
    }
}

/// `"goal": {...}`: what a `/goal` may use before it stops unmet; with none set, ten turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoalConfig {
    /// Turns worked toward it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Tokens (input and output) its turns may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Money its turns may spend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<f64>,
    /// Wall time its turns may take, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_seconds: Option<u64>,
}
