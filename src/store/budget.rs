//! Task budgets: how many `task` calls a session has made, counted in the store so the
//! budget survives a restart.

use rusqlite::{OptionalExtension, params};

use super::{Result, Store};
use crate::id::SessionId;

impl Store {
    pub fn task_calls(&self, session_id: &SessionId) -> Result<u32> {
        let used: Option<u32> = self
            .conn()
            .query_row(
                "SELECT used FROM task_budget WHERE session_id = ?1",
                [session_id.as_str()],
                |r| r.get(0),
            )
            .optional()?;
        Ok(used.unwrap_or(0))
    }

    /// Counts one more call and returns the new total.
    pub fn count_task_call(&self, session_id: &SessionId) -> Result<u32> {
        Ok(self.conn().query_row(
            "INSERT INTO task_budget (session_id, used) VALUES (?1, 1)
             ON CONFLICT(session_id) DO UPDATE SET used = used + 1
             RETURNING used",
            params![session_id.as_str()],
            |r| r.get(0),
        )?)
    }

    /// Children of `parent`, oldest first.
    pub fn children(&self, parent: &SessionId) -> Result<Vec<crate::message::SessionInfo>> {
        let ids: Vec<String> = self
            .conn()
            .prepare_cached("SELECT id FROM session WHERE parent_id = ?1 ORDER BY created_at, id")?
            .query_map([parent.as_str()], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        self.sessions_with_ids(ids)
    }
}
