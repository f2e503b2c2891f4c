//! A session's goal (`/goal`): the condition Tandem keeps working toward turn after turn, where
//! it stands, what it has used of its budget, and the snapshot editors read in
//! `session_info_update._meta.goal`. Bottom layer: imports only `id` and `config`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::GoalConfig;

/// Where a goal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalStatus {
    /// Tandem works toward it after each turn the judge finds it unmet.
    Active,
    /// The person paused it: no turn starts for it until resumed.
    Paused,
    /// The judge could not judge (its model failed): work stopped; resume to try again.
    Blocked,
    /// A budget ran out before the condition held.
    Limited,
    /// The judge found the condition holds.
    Complete,
}

impl GoalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Paused => "paused",
            Self::Blocked => "blocked",
            Self::Limited => "limited",
            Self::Complete => "complete",
        }
    }
}

/// What a goal may use before it stops as `limited`; unset: no ceiling.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GoalBudget {
    pub turns: Option<u32>,
    pub tokens: Option<u64>,
    pub cost: Option<f64>,
    pub seconds: Option<u64>,
}

impl GoalBudget {
    /// The config's budget, with ten turns when it sets no ceiling at all.
    pub fn from_config(config: Option<GoalConfig>) -> Self {
        let config = config.unwrap_or_default();
        let mut budget = Self {
            turns: config.max_turns,
            tokens: config.max_tokens,
            cost: config.max_cost,
            seconds: config.max_seconds,
        };
        if budget == Self::default() {
            budget.turns = Some(DEFAULT_TURNS);
        }
        budget
    }
}

/// The turns a goal gets when the config sets no budget.
pub const DEFAULT_TURNS: u32 = 10;

/// One session's goal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    pub objective: String,
    pub status: GoalStatus,
    /// ms since the epoch.
    pub created_at: i64,
    pub updated_at: i64,
    /// Turns worked toward it (each judged).
    pub turns: u32,
    pub tokens_used: u64,
    pub cost_used: f64,
    pub time_used_ms: u64,
    /// The judge's last reasons.
    pub last_reason: Option<String>,
    pub budget: GoalBudget,
}

impl Goal {
    pub fn new(objective: String, budget: GoalBudget) -> Self {
        let now = crate::id::now_ms();
        Self {
            objective,
            status: GoalStatus::Active,
            created_at: now,
            updated_at: now,
            turns: 0,
            tokens_used: 0,
            cost_used: 0.0,
            time_used_ms: 0,
            last_reason: None,
            budget,
        }
    }

    /// Moves it to `status`, noting when.
    pub fn set_status(&mut self, status: GoalStatus) {
        self.status = status;
        self.updated_at = crate::id::now_ms();
    }

    /// The budget it has run out of, in words; None while any is left.
    pub fn spent(&self) -> Option<String> {
        let b = &self.budget;
        if let Some(turns) = b.turns.filter(|t| self.turns >= *t) {
            return Some(format!("its budget of {turns} turns"));
        }
        if let Some(tokens) = b.tokens.filter(|t| self.tokens_used >= *t) {
            return Some(format!("its budget of {tokens} tokens"));
        }
        if let Some(cost) = b.cost.filter(|c| self.cost_used >= *c) {
            return Some(format!("its budget of ${cost:.2}"));
        }
        if let Some(seconds) = b.seconds.filter(|s| self.time_used_ms / 1000 >= *s) {
            return Some(format!("its budget of {seconds} s"));
        }
        None
    }

    /// The snapshot editors read (`_meta.goal`), in the shape the first-party adapters use.
    pub fn snapshot(&self) -> Value {
        json!({
            "objective": self.objective,
            "status": self.status.as_str(),
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "iterations": self.turns,
            "turnBudget": self.budget.turns,
            "tokenBudget": self.budget.tokens,
            "tokensUsed": self.tokens_used,
            "costBudget": self.budget.cost,
            "costUsed": self.cost_used,
            "timeBudgetSeconds": self.budget.seconds,
            "timeUsedSeconds": self.time_used_ms / 1000,
            "lastReason": self.last_reason,
            "controlMethod": "/goal",
        })
    }

    /// One paragraph for the person (`/goal` alone).
    pub fn describe(&self) -> String {
        let mut text = format!(
            "Goal ({}): {}\nTurns: {}{}",
            self.status.as_str(),
            self.objective,
            self.turns,
            self.budget
                .turns
                .map(|t| format!(" of {t}"))
                .unwrap_or_default()
        );
        if let Some(reason) = &self.last_reason {
            text.push_str(&format!("\nLast check: {reason}"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_without_a_configured_budget_gets_ten_turns_and_runs_out_of_them() {
        let mut goal = Goal::new("tests pass".into(), GoalBudget::from_config(None));
        assert_eq!(goal.budget.turns, Some(DEFAULT_TURNS));
        goal.turns = DEFAULT_TURNS;
        assert_eq!(goal.spent().as_deref(), Some("its budget of 10 turns"));
        assert_eq!(goal.snapshot()["status"], "active");
    }
}
