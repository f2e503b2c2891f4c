//! Reading what changed since a watcher last looked: messages and parts by change number,
//! sessions by update time, and every status, revert and todo row (few, so read whole).

use rusqlite::params;

use super::{Result, Store};
use crate::id::{MessageId, SessionId};
use crate::message::{MessageInfo, Part, PartBody, SessionInfo, SessionRevert, SessionStatus};
use crate::todo::Todo;

/// Message and part rows written after change `since`, and the newest change number seen.
pub struct Changes {
    pub messages: Vec<MessageInfo>,
    pub parts: Vec<Part>,
    pub last: i64,
}

impl Store {
    /// The newest change number (start watching from here).
    pub fn last_change(&self) -> Result<i64> {
        Ok(self
            .conn()
            .query_row("SELECT value FROM change_counter WHERE id = 1", [], |r| {
                r.get(0)
            })?)
    }

    /// Messages and parts written after change `since`, in the order they were written.
    pub fn changes_since(&self, since: i64) -> Result<Changes> {
        let conn = self.conn();
        let mut last = since;
        let mut messages = Vec::new();
        {
            let mut stmt = conn
                .prepare_cached("SELECT data, seq FROM message WHERE seq > ?1 ORDER BY seq, id")?;
            let mut rows = stmt.query([since])?;
            while let Some(row) = rows.next()? {
                let info: MessageInfo = serde_json::from_str(&row.get::<_, String>(0)?)?;
                last = last.max(row.get(1)?);
                messages.push(info);
            }
        }
        let mut parts = Vec::new();
        let mut stmt = conn.prepare_cached(
            "SELECT id, message_id, session_id, data, seq FROM part WHERE seq > ?1 ORDER BY seq, id",
        )?;
        let mut rows = stmt.query([since])?;
        while let Some(row) = rows.next()? {
            let mut body: PartBody = serde_json::from_str(&row.get::<_, String>(3)?)?;
            super::legacy::upgrade(&mut body);
            parts.push(Part {
                id: row.get::<_, String>(0)?.into(),
                message_id: MessageId(row.get(1)?),
                session_id: SessionId(row.get(2)?),
                body,
            });
            last = last.max(row.get(4)?);
        }
        Ok(Changes {
            messages,
            parts,
            last,
        })
    }

    /// Sessions (roots and children) updated at or after `since` (ms).
    pub fn sessions_updated_since(&self, since: i64) -> Result<Vec<SessionInfo>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT id FROM session WHERE updated_at >= ?1 ORDER BY updated_at, id",
        )?;
        let ids: Vec<String> = stmt
            .query_map(params![since], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        drop(stmt);
        drop(conn);
        self.sessions_with_ids(ids)
    }

    /// Every status row: session, status, writing process.
    pub fn all_statuses(&self) -> Result<Vec<(SessionId, SessionStatus, u32)>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached("SELECT session_id, data, pid FROM session_status")?;
        let rows = stmt
            .query_map([], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<(String, String, u32)>>>()?;
        rows.into_iter()
            .map(|(id, data, pid)| Ok((SessionId(id), serde_json::from_str(&data)?, pid)))
            .collect()
    }

    /// Every pending revert, by session.
    pub fn all_reverts(&self) -> Result<Vec<(SessionId, SessionRevert)>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached("SELECT session_id, data FROM session_revert")?;
        let rows = stmt
            .query_map([], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.into_iter()
            .map(|(id, data)| Ok((SessionId(id), serde_json::from_str(&data)?)))
            .collect()
    }

    /// Todo lists changed at or after `since` (ms).
    pub fn todos_updated_since(&self, since: i64) -> Result<Vec<(SessionId, Vec<Todo>, i64)>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT session_id, data, updated_at FROM todo WHERE updated_at >= ?1",
        )?;
        let rows = stmt
            .query_map([since], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<(String, String, i64)>>>()?;
        rows.into_iter()
            .map(|(id, data, at)| Ok((SessionId(id), serde_json::from_str(&data)?, at)))
            .collect()
    }
}
