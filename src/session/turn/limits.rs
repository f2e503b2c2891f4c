//! The person's ceilings on a turn (`limits`): the money spent by the session, by the day and
//! by the delegation tree, checked before each model call, and the turn's wall time, watched
//! throughout; each call's own cost recorded for the sums; what the person is told at one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::LimitsConfig;
use crate::id::{MessageId, SessionId};
use crate::session::core::state::SessionState;
use crate::session::error::SessionError;
use crate::store::{Spent, Store};

/// One turn's ceilings and where its costs are counted.
pub(in crate::session) struct TurnLimits {
    config: LimitsConfig,
    /// The top-level session of this session's delegation tree.
    root: SessionId,
    /// Set when the wall-time ceiling cancelled the turn.
    timed_out: Arc<AtomicBool>,
    /// Ends the timer with the turn.
    timer: Option<tokio::task::AbortHandle>,
}

impl TurnLimits {
    /// The ceilings `state`'s config sets, and the turn's token: `cancel` itself, or a child of
    /// it the wall-time ceiling cancels.
    pub fn start(
        state: &SessionState,
        store: &Store,
        cancel: CancellationToken,
    ) -> Result<(Self, CancellationToken), SessionError> {
        let config = state.config.config.limits.unwrap_or_default();
        let root = match state.info.parent_id {
            None => state.info.id.clone(),
            Some(_) => store.root_of(&state.info.id)?,
        };
        let timed_out = Arc::new(AtomicBool::new(false));
        let (cancel, timer) = match config.turn_seconds {
            Some(seconds) => {
                let turn = cancel.child_token();
                let (ends, flag) = (turn.clone(), timed_out.clone());
                let timer = tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_secs(seconds)).await;
                    flag.store(true, Ordering::Release);
                    ends.cancel();
                });
                (turn, Some(timer.abort_handle()))
            }
            None => (cancel, None),
        };
        let limits = Self {
            config,
            root,
            timed_out,
            timer,
        };
        Ok((limits, cancel))
    }

    /// Records what one model call of this session cost by itself.
    pub fn record(
        &self,
        store: &Store,
        (session, message): (&SessionId, &MessageId),
        cost: Option<f64>,
    ) -> Result<(), SessionError> {
        let Some(cost) = cost.filter(|c| *c > 0.0) else {
            return Ok(());
        };
        store.put_spend(&Spent {
            message,
            session,
            root: &self.root,
            at: crate::id::now_ms(),
            cost,
        })?;
        Ok(())
    }

    /// Before a model call, with the session's spend so far (its subagents' included): the
    /// money ceiling reached, in the words the person reads; None while every one holds.
    pub fn money_reached(
        &self,
        session: f64,
        store: &Store,
    ) -> Result<Option<String>, SessionError> {
        let limits = &self.config;
        if !limits.has_cost() {
            return Ok(None);
        }
        if let Some(ceiling) = limits.session_cost.filter(|c| session >= *c) {
            return Ok(Some(over(
                "This session has spent",
                session,
                ceiling,
                "session_cost",
            )));
        }
        if let Some(ceiling) = limits.tree_cost {
            let tree = store.spent_by_tree(&self.root)?;
            if tree >= ceiling {
                let who = "This session and its subagents have spent";
                return Ok(Some(over(who, tree, ceiling, "tree_cost")));
            }
        }
        if let Some(ceiling) = limits.day_cost {
            let day = store.spent_since(local_midnight_ms())?;
            if day >= ceiling {
                let who = "Today every session together has spent";
                return Ok(Some(over(who, day, ceiling, "day_cost")));
            }
        }
        Ok(None)
    }

    /// After the turn: the words for a turn the wall-time ceiling stopped, if it did.
    pub fn timed_out(&self) -> Option<String> {
        let seconds = self.config.turn_seconds?;
        self.timed_out.load(Ordering::Acquire).then(|| {
            format!(
                "This turn ran for its limit of {seconds} s (`limits.turn_seconds`) and was \
                 stopped there; nothing is lost. Send a message to go on."
            )
        })
    }
}

impl Drop for TurnLimits {
    fn drop(&mut self) {
        if let Some(timer) = &self.timer {
            timer.abort();
        }
    }
}

/// "<who> $2.03, reaching its ceiling of $2.00 (`limits.session_cost`)…".
fn over(who: &str, spent: f64, ceiling: f64, key: &str) -> String {
    format!(
        "{who} ${spent:.2}, reaching the ceiling of ${ceiling:.2} (`limits.{key}`). The turn \
         stops here; nothing is lost. Raise the ceiling to go on."
    )
}

/// The start of today in local time, ms since the epoch.
fn local_midnight_ms() -> i64 {
    let now = crate::id::now_ms();
    match crate::sys::seconds_into_local_day(now / 1000) {
        Some(into_day) => (now / 1000 - into_day) * 1000,
        // UTC's day, when the local one cannot be told.
        None => now - now.rem_euclid(86_400_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midnight_is_within_the_last_day() {
        let now = crate::id::now_ms();
        let midnight = local_midnight_ms();
        assert!(midnight <= now && now - midnight < 86_400_000 + 3_600_000);
    }

    #[test]
    fn the_words_name_the_key_and_both_sums() {
        assert_eq!(
            over("This session has spent", 2.031, 2.0, "session_cost"),
            "This session has spent $2.03, reaching the ceiling of $2.00 \
             (`limits.session_cost`). The turn stops here; nothing is lost. Raise the ceiling \
             to go on."
        );
    }
}
