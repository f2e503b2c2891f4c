//! What model calls cost, one row per call, for the money ceilings: the day's spend across
//! sessions and a delegation tree's, read back as sums.

use rusqlite::params;

use super::{Result, Store};
use crate::id::{MessageId, SessionId};

/// One model call's own cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Spent<'a> {
    pub message: &'a MessageId,
    pub session: &'a SessionId,
    /// The top-level session of its delegation tree (itself for a top-level session).
    pub root: &'a SessionId,
    /// When it was spent, ms since the epoch.
    pub at: i64,
    pub cost: f64,
}

impl Store {
    /// Records one call's cost (again for the same message: replaced).
    pub fn put_spend(&self, spent: &Spent<'_>) -> Result<()> {
        self.conn().execute(
            "INSERT OR REPLACE INTO spend (message_id, session_id, root_id, at, cost)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                spent.message.as_str(),
                spent.session.as_str(),
                spent.root.as_str(),
                spent.at,
                spent.cost
            ],
        )?;
        Ok(())
    }

    /// What every session spent since `since` (ms since the epoch).
    pub fn spent_since(&self, since: i64) -> Result<f64> {
        Ok(self.conn().query_row(
            "SELECT COALESCE(SUM(cost), 0.0) FROM spend WHERE at >= ?1",
            [since],
            |r| r.get(0),
        )?)
    }

    /// What the delegation tree under `root` spent, at every depth.
    pub fn spent_by_tree(&self, root: &SessionId) -> Result<f64> {
        Ok(self.conn().query_row(
            "SELECT COALESCE(SUM(cost), 0.0) FROM spend WHERE root_id = ?1",
            [root.as_str()],
            |r| r.get(0),
        )?)
    }

    /// The top-level session above `session` (itself when it has no parent).
    pub fn root_of(&self, session: &SessionId) -> Result<SessionId> {
        let root: String = self.conn().query_row(
            "WITH RECURSIVE up(id, parent_id) AS (
                 SELECT id, parent_id FROM session WHERE id = ?1
                 UNION ALL
                 SELECT s.id, s.parent_id FROM session s JOIN up ON s.id = up.parent_id
             )
             SELECT id FROM up WHERE parent_id IS NULL",
            [session.as_str()],
            |r| r.get(0),
        )?;
        Ok(SessionId(root))
    }
}
