//! Todo lists: one row per session holding the whole list, replaced in one statement.

use rusqlite::{OptionalExtension, params};

use super::{Result, Store};
use crate::id::SessionId;
use crate::todo::Todo;

impl Store {
    /// The session's list, empty if it never had one.
    pub fn todos(&self, session_id: &SessionId) -> Result<Vec<Todo>> {
        let data: Option<String> = self
            .conn()
            .query_row(
                "SELECT data FROM todo WHERE session_id = ?1",
                [session_id.as_str()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(match data {
            Some(data) => serde_json::from_str(&data)?,
            None => Vec::new(),
        })
    }

    /// Replaces the session's list.
    pub fn put_todos(&self, session_id: &SessionId, todos: &[Todo], at: i64) -> Result<()> {
        let data = serde_json::to_string(todos)?;
        self.conn().execute(
            "INSERT INTO todo (session_id, data, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(session_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at",
            params![session_id.as_str(), data, at],
        )?;
        Ok(())
    }
}
