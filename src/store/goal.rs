//! A session's goal, one JSON record per session: kept as it changes, read when the session
//! opens, removed when the person clears it.

use rusqlite::OptionalExtension;

use super::{Result, Store};
use crate::goal::Goal;
use crate::id::SessionId;

impl Store {
    /// Keeps `goal` as the session's (replacing any other).
    pub fn put_goal(&self, session: &SessionId, goal: &Goal) -> Result<()> {
        self.conn().execute(
            "INSERT OR REPLACE INTO session_goal (session_id, data) VALUES (?1, ?2)",
            (session.as_str(), serde_json::to_string(goal)?),
        )?;
        Ok(())
    }

    /// The session's goal, if it has one.
    pub fn goal(&self, session: &SessionId) -> Result<Option<Goal>> {
        let data: Option<String> = self
            .conn()
            .query_row(
                "SELECT data FROM session_goal WHERE session_id = ?1",
                [session.as_str()],
                |r| r.get(0),
            )
            .optional()?;
        Ok(match data {
            Some(data) => Some(serde_json::from_str(&data)?),
            None => None,
        })
    }

    /// Forgets the session's goal.
    pub fn clear_goal(&self, session: &SessionId) -> Result<()> {
        self.conn().execute(
            "DELETE FROM session_goal WHERE session_id = ?1",
            [session.as_str()],
        )?;
        Ok(())
    }
}
