//! Which session an external ACP agent keeps for a child session (and which agent), so a
//! later task with the same task id continues it, in this process or the next.

use rusqlite::{OptionalExtension, params};

use super::{Result, Store};
use crate::id::SessionId;

impl Store {
    /// The agent's session kept for `session_id`, when `agent` is the agent that kept it.
    pub fn remote_session(&self, session_id: &SessionId, agent: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT remote_id FROM remote_session WHERE session_id = ?1 AND agent = ?2",
                params![session_id.as_str(), agent],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn put_remote_session(
        &self,
        session_id: &SessionId,
        agent: &str,
        remote_id: &str,
    ) -> Result<()> {
        self.conn().execute(
            "INSERT INTO remote_session (session_id, agent, remote_id) VALUES (?1, ?2, ?3)
             ON CONFLICT(session_id) DO UPDATE SET agent = ?2, remote_id = ?3",
            params![session_id.as_str(), agent, remote_id],
        )?;
        Ok(())
    }
}
