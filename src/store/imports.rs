//! Imported sessions: each written whole in one transaction (its session row, messages and
//! parts, and where it came from), once per source session; and where a session came from.

use rusqlite::{OptionalExtension, params};

use super::{Result, Store};
use crate::id::{SessionId, now_ms};
use crate::message::{Message, SessionInfo};

/// Where an imported session came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportOrigin {
    /// The agent that wrote it (`claude-code`, `codex`, `opencode`, `tandem`).
    pub agent: String,
    /// Its id there.
    pub source_id: String,
    /// The file (or database) it was read from.
    pub source: String,
    /// The version of the agent that wrote it, where the file says.
    pub version: Option<String>,
}

impl Store {
    /// The session `source_id` of `agent` was imported as, if it was.
    pub fn imported_as(&self, agent: &str, source_id: &str) -> Result<Option<SessionId>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT session_id FROM import_origin WHERE agent = ?1 AND source_id = ?2",
                (agent, source_id),
                |r| r.get::<_, String>(0),
            )
            .optional()?
            .map(SessionId))
    }

    /// Where the session came from, if it was imported.
    pub fn import_origin(&self, session: &SessionId) -> Result<Option<ImportOrigin>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT agent, source_id, source, version FROM import_origin WHERE session_id = ?1",
                [session.as_str()],
                |r| {
                    Ok(ImportOrigin {
                        agent: r.get(0)?,
                        source_id: r.get(1)?,
                        source: r.get(2)?,
                        version: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }

    /// The agent each of `sessions` was imported from, for those that were.
    pub fn imported_from(
        &self,
        sessions: &[SessionId],
    ) -> Result<std::collections::HashMap<SessionId, String>> {
        let conn = self.conn();
        let mut query =
            conn.prepare_cached("SELECT agent FROM import_origin WHERE session_id = ?1")?;
        let mut found = std::collections::HashMap::new();
        for session in sessions {
            let agent: Option<String> = query
                .query_row([session.as_str()], |r| r.get(0))
                .optional()?;
            if let Some(agent) = agent {
                found.insert(session.clone(), agent);
            }
        }
        Ok(found)
    }

    /// Writes an imported session whole; the session it already was, if the same source
    /// session was imported before (then nothing is written).
    pub fn import_session(
        &self,
        info: &SessionInfo,
        messages: &[Message],
        origin: &ImportOrigin,
    ) -> Result<Option<SessionId>> {
        let conn = self.conn();
        let tx = conn.unchecked_transaction()?;
        let known: Option<String> = tx
            .query_row(
                "SELECT session_id FROM import_origin WHERE agent = ?1 AND source_id = ?2",
                (&origin.agent, &origin.source_id),
                |r| r.get(0),
            )
            .optional()?;
        if let Some(known) = known {
            return Ok(Some(SessionId(known)));
        }
        tx.execute(
            "INSERT INTO session (id, parent_id, cwd, title, created_at, updated_at)
             VALUES (?1, NULL, ?2, ?3, ?4, ?5)",
            params![
                info.id.as_str(),
                info.cwd.to_string_lossy(),
                info.title,
                info.created_at,
                info.updated_at
            ],
        )?;
        let seq = super::behind::next_change(&tx)?;
        for message in messages {
            tx.prepare_cached(
                "INSERT INTO message (id, session_id, role, data, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![
                message.info.id.as_str(),
                info.id.as_str(),
                message.info.role.as_str(),
                serde_json::to_string(&message.info)?,
                seq
            ])?;
            for part in &message.parts {
                tx.prepare_cached(
                    "INSERT INTO part (id, message_id, session_id, data, seq) VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![
                    part.id.as_str(),
                    message.info.id.as_str(),
                    info.id.as_str(),
                    serde_json::to_string(&part.body)?,
                    seq
                ])?;
            }
        }
        tx.execute(
            "INSERT INTO import_origin (session_id, agent, source_id, source, version, imported_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                info.id.as_str(),
                origin.agent,
                origin.source_id,
                origin.source,
                origin.version,
                now_ms()
            ],
        )?;
        tx.commit()?;
        Ok(None)
    }
}
