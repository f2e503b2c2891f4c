//! A session's goal as it runs: `/goal <condition>` sets it and starts work, `/goal pause`,
//! `resume` and `clear` steer it, and after each turn the judge reads the turn's evidence;
//! unmet with budget left, another turn starts; every change is stored and shown to the
//! editor (`session_info_update._meta.goal`).

pub(in crate::session) mod evidence;
mod judge;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::goal::{Goal, GoalBudget, GoalStatus};
use crate::message::{PartBody, ToolState};
use crate::session::core::goal_cell::GoalCell;
use crate::session::core::state::{Services, SessionState};
use crate::session::error::{SessionError, StopReason};
use crate::session::turn::joining::JoinQueue;
use crate::tool::ClientPort;

use crate::command::GOAL;

/// Runs the prompt's turn (a `/goal` prompt's set the goal first), then, while the session's
/// goal is active and the judge finds it unmet, the next turn toward it.
pub(in crate::session) async fn turns(
    state: &mut SessionState,
    services: &Services,
    content: Vec<PartBody>,
    (port, cancel): (Arc<dyn ClientPort>, CancellationToken),
    door: &JoinQueue,
) -> Result<StopReason, SessionError> {
    let content = match start(&content, state) {
        Some(Ok(content)) => content,
        Some(Err(words)) => {
            state.goal.tell(words);
            return Ok(StopReason::EndTurn);
        }
        None => content,
    };
    let run = crate::session::turn::run;
    let mut result = run(state, services, content, port.clone(), cancel.clone(), door).await;
    while let Some(next) = after_turn(state, &result).await {
        if cancel.is_cancelled() {
            break;
        }
        result = run(state, services, next, port.clone(), cancel.clone(), door).await;
    }
    result
}

/// The words after `/goal` in `content`, if it is that command.
fn arguments(content: &[PartBody]) -> Option<&str> {
    let rest = crate::message::sole_text(content)?
        .trim()
        .strip_prefix('/')?
        .strip_prefix(GOAL)?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// The answer at once to `/goal` (where it stands), `/goal pause` and `/goal clear`; None for
/// anything else.
pub(in crate::session) fn at_once(content: &[PartBody], cell: &GoalCell) -> Option<String> {
    let words = arguments(content)?;
    let goal = cell.get();
    Some(match (words, goal) {
        ("", Some(goal)) => goal.describe(),
        ("" | "pause" | "clear", None) => {
            "There is no goal. /goal <condition> sets one and starts working toward it.".into()
        }
        ("pause", Some(mut goal)) => {
            goal.set_status(GoalStatus::Paused);
            cell.put(Some(goal));
            "Goal paused: no new turn starts for it (the running one finishes). /goal resume \
             goes on."
                .into()
        }
        ("clear", Some(_)) => {
            cell.put(None);
            "Goal cleared.".into()
        }
        _ => return None,
    })
}

/// What a prompt that is `/goal <condition>` or `/goal resume` runs as its turn, once the goal
/// is set (or resumed); the words for the person when it cannot; None for other prompts.
fn start(content: &[PartBody], state: &SessionState) -> Option<Result<Vec<PartBody>, String>> {
    let words = arguments(content)?;
    let cell = &state.goal;
    if words == "resume" {
        let Some(mut goal) = cell.get() else {
            return Some(Err("There is no goal to resume.".into()));
        };
        if goal.status == GoalStatus::Complete {
            return Some(Err(
                "The goal is already met. /goal <condition> sets a new one.".into(),
            ));
        }
        goal.set_status(GoalStatus::Active);
        // A goal that ran out of budget gets a fresh one when the person resumes it.
        goal.turns = 0;
        let text = continuation(&goal.objective, goal.last_reason.as_deref());
        cell.put(Some(goal));
        return Some(Ok(vec![synthetic(text)]));
    }
    let budget = GoalBudget::from_config(state.config.config.goal);
    cell.put(Some(Goal::new(words.to_owned(), budget)));
    Some(Ok(vec![PartBody::Text {
        text: format!(
            "Goal: {words}\n\nWork toward this until it holds. After each turn, a check of \
             what your commands, tests and edits showed decides whether you go on."
        ),
        synthetic: false,
    }]))
}

/// After a turn of a top-level session: a goal the model set with the `goal` tool starts, and
/// an active goal is judged on the turn's evidence; the content of the next turn when the goal
/// is unmet with budget left, None when the work stops here.
async fn after_turn(
    state: &SessionState,
    result: &Result<StopReason, SessionError>,
) -> Option<Vec<PartBody>> {
    if state.info.parent_id.is_some() || !matches!(result, Ok(StopReason::EndTurn)) {
        return None;
    }
    let turn = evidence::last_turn(&state.messages);
    adopt_proposed(state, turn);
    let mut goal = state
        .goal
        .get()
        .filter(|g| g.status == GoalStatus::Active)?;
    let (tokens, cost, ms) = evidence::used(&state.messages, turn);
    goal.turns += 1;
    goal.tokens_used += tokens;
    goal.cost_used += cost;
    goal.time_used_ms += ms;
    let model = state.settings.model();
    let judged = judge::judge(
        &state.config,
        model.as_deref(),
        (&goal.objective, &evidence::gather(turn)),
    )
    .await;
    let cell = &state.goal;
    let verdict = match judged {
        Ok(verdict) => verdict,
        Err(why) => {
            goal.last_reason = Some(why.clone());
            goal.set_status(GoalStatus::Blocked);
            cell.put(Some(goal));
            cell.tell(format!(
                "Goal check failed ({why}); work on the goal stops. /goal resume tries again."
            ));
            return None;
        }
    };
    goal.last_reason = Some(verdict.reason.clone());
    if verdict.met {
        goal.set_status(GoalStatus::Complete);
        cell.put(Some(goal));
        cell.tell(format!("Goal met: {}", verdict.reason));
        return None;
    }
    if let Some(spent) = goal.spent() {
        goal.set_status(GoalStatus::Limited);
        cell.put(Some(goal));
        cell.tell(format!(
            "Goal not met: {}\nIt stops here: it used {spent}. /goal resume gives it another.",
            verdict.reason
        ));
        return None;
    }
    let text = continuation(&goal.objective, Some(&verdict.reason));
    goal.updated_at = crate::id::now_ms();
    cell.put(Some(goal));
    cell.tell(format!("Goal not met yet: {}\nWorking on.", verdict.reason));
    Some(vec![synthetic(text)])
}

/// A goal the model proposed with the `goal` tool this turn (the person approved the call)
/// becomes the session's, unless one is already active.
fn adopt_proposed(state: &SessionState, turn: &[crate::message::Message]) {
    let proposed = turn
        .iter()
        .flat_map(|m| &m.parts)
        .find_map(|p| match &p.body {
            PartBody::Tool(call) if call.tool == GOAL => match &call.state {
                ToolState::Completed { metadata, .. } => metadata["objective"].as_str(),
                _ => None,
            },
            _ => None,
        });
    let active = state
        .goal
        .get()
        .is_some_and(|g| g.status == GoalStatus::Active);
    if let (Some(objective), false) = (proposed, active) {
        let budget = GoalBudget::from_config(state.config.config.goal);
        state
            .goal
            .put(Some(Goal::new(objective.to_owned(), budget)));
    }
}

/// The note that starts the next turn toward the goal.
fn continuation(objective: &str, reason: Option<&str>) -> String {
    let why = reason
        .map(|r| format!("\nThe last check found it not met yet: {r}"))
        .unwrap_or_default();
    format!(
        "<system-reminder>\nKeep working toward the goal: {objective}{why}\nShow it holds with \
         commands and tests, not words.\n</system-reminder>"
    )
}

fn synthetic(text: String) -> PartBody {
    PartBody::Text {
        text,
        synthetic: true,
    }
}
