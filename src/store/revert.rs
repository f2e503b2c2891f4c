//! The session surface's rows: a pending revert, the removal it becomes, each session's status
//! as its process last wrote it, and where forks came from.

use rusqlite::{OptionalExtension, params};

use super::{Result, Store};
use crate::id::{MessageId, PartId, SessionId};
use crate::message::{ForkOrigin, SessionRevert, SessionStatus};

impl Store {
    pub fn revert(&self, session_id: &SessionId) -> Result<Option<SessionRevert>> {
        let data: Option<String> = self
            .conn()
            .query_row(
                "SELECT data FROM session_revert WHERE session_id = ?1",
                [session_id.as_str()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(data.map(|d| serde_json::from_str(&d)).transpose()?)
    }

    /// Records (Some) or clears (None) the session's pending revert.
    pub fn put_revert(&self, session_id: &SessionId, revert: Option<&SessionRevert>) -> Result<()> {
        let conn = self.conn();
        match revert {
            Some(revert) => conn.execute(
                "INSERT INTO session_revert (session_id, data) VALUES (?1, ?2)
                 ON CONFLICT(session_id) DO UPDATE SET data = excluded.data",
                params![session_id.as_str(), serde_json::to_string(revert)?],
            )?,
            None => conn.execute(
                "DELETE FROM session_revert WHERE session_id = ?1",
                [session_id.as_str()],
            )?,
        };
        Ok(())
    }

    /// Deletes, in one transaction, the messages from `message_id` on (or, with `part_id`, the
    /// parts of that message from it on, and the later messages), and the pending revert.
    pub fn delete_from(
        &self,
        session_id: &SessionId,
        message_id: &MessageId,
        part_id: Option<&PartId>,
    ) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let (sid, mid) = (session_id.as_str(), message_id.as_str());
        match part_id {
            Some(part) => {
                tx.execute(
                    "DELETE FROM part WHERE message_id = ?1 AND id >= ?2",
                    params![mid, part.as_str()],
                )?;
                tx.execute(
                    "DELETE FROM message WHERE session_id = ?1 AND id > ?2",
                    params![sid, mid],
                )?;
            }
            None => {
                tx.execute(
                    "DELETE FROM message WHERE session_id = ?1 AND id >= ?2",
                    params![sid, mid],
                )?;
            }
        }
        tx.execute("DELETE FROM session_revert WHERE session_id = ?1", [sid])?;
        tx.commit()?;
        Ok(())
    }

    /// Records what the session is doing, as this process (`pid`) sees it.
    pub fn put_status(
        &self,
        session_id: &SessionId,
        status: &SessionStatus,
        pid: u32,
        at: i64,
    ) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_status (session_id, data, pid, updated_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(session_id) DO UPDATE SET data = excluded.data, pid = excluded.pid,
                 updated_at = excluded.updated_at",
            params![session_id.as_str(), serde_json::to_string(status)?, pid, at],
        )?;
        Ok(())
    }

    /// Every status row that is not idle: session, status, the process that wrote it.
    pub fn active_statuses(&self) -> Result<Vec<(SessionId, SessionStatus, u32)>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT session_id, data, pid FROM session_status WHERE data != '{\"type\":\"idle\"}'",
        )?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, u32>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter()
            .map(|(id, data, pid)| Ok((SessionId(id), serde_json::from_str(&data)?, pid)))
            .collect()
    }

    pub fn fork_origin(&self, session_id: &SessionId) -> Result<Option<ForkOrigin>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT source_id, message_id, number FROM session_fork WHERE session_id = ?1",
                [session_id.as_str()],
                |row| {
                    Ok(ForkOrigin {
                        session_id: SessionId(row.get(0)?),
                        message_id: row.get::<_, Option<String>>(1)?.map(MessageId),
                        number: row.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// How many forks of `source` exist so far.
    pub fn fork_count(&self, source: &SessionId) -> Result<u32> {
        Ok(self.conn().query_row(
            "SELECT COALESCE(MAX(number), 0) FROM session_fork WHERE source_id = ?1",
            [source.as_str()],
            |row| row.get(0),
        )?)
    }

    pub fn put_fork_origin(&self, session_id: &SessionId, origin: &ForkOrigin) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_fork (session_id, source_id, message_id, number) VALUES (?1, ?2, ?3, ?4)",
            params![
                session_id.as_str(),
                origin.session_id.as_str(),
                origin.message_id.as_ref().map(|m| m.as_str()),
                origin.number
            ],
        )?;
        Ok(())
    }
}
