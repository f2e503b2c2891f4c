//! Deleting sessions (their children, messages, todos and status with them; approvals are the
//! project's and stay) and finding what is old, or which snapshots a project still uses.

use std::path::Path;

use rusqlite::params;

use super::{Result, Store};
use crate::id::SessionId;
use crate::message::{PartBody, SessionInfo, SessionRevert};

impl Store {
    /// Deletes `id` and every session under it in one transaction; returns their ids (the
    /// session first), empty when there was no such session.
    pub fn delete_session(&self, id: &SessionId) -> Result<Vec<SessionId>> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let ids: Vec<String> = tx
            .prepare(
                "WITH RECURSIVE tree(id) AS (
                     SELECT id FROM session WHERE id = ?1
                     UNION ALL SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id)
                 SELECT id FROM tree",
            )?
            .query_map([id.as_str()], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        // Children go with their parent (ON DELETE CASCADE), and messages, parts and the
        // session's other rows with each.
        tx.execute("DELETE FROM session WHERE id = ?1", [id.as_str()])?;
        tx.commit()?;
        Ok(ids.into_iter().map(SessionId).collect())
    }

    /// Root sessions last updated before `cutoff` (ms), oldest first.
    pub fn sessions_updated_before(&self, cutoff: i64) -> Result<Vec<SessionInfo>> {
        let conn = self.conn();
        let ids: Vec<String> = conn
            .prepare_cached(
                "SELECT id FROM session WHERE parent_id IS NULL AND updated_at < ?1 ORDER BY updated_at",
            )?
            .query_map(params![cutoff], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        drop(conn);
        self.sessions_with_ids(ids)
    }

    /// Every tree of `cwd`'s snapshot store that sessions still refer to (steps, patches,
    /// pending reverts), theirs in `cwd` and those of sessions that had it as another root.
    pub fn snapshots_in_use(&self, cwd: &Path) -> Result<Vec<String>> {
        let conn = self.conn();
        let dir = cwd.to_string_lossy();
        // The sessions in `cwd`, and those that had it as another root of their workspace.
        let root = format!("%{}%", serde_json::to_string(&dir).unwrap_or_default());
        let mut found: Vec<(String, String)> = Vec::new();
        let mut parts = conn.prepare_cached(
            "SELECT s.cwd, p.data FROM part p JOIN session s ON s.id = p.session_id
             WHERE (s.cwd = ?1 OR s.extra_roots LIKE ?2)
               AND (p.data LIKE '%\"type\":\"step-start\"%' OR p.data LIKE '%\"type\":\"patch\"%')",
        )?;
        let rows = parts
            .query_map(params![dir.as_ref(), root], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
        for (owner, data) in rows {
            match serde_json::from_str::<PartBody>(&data)? {
                PartBody::StepStart { snapshot: Some(id) }
                | PartBody::Patch { snapshot: id, .. } => found.push((owner, id)),
                _ => {}
            }
        }
        let mut reverts = conn.prepare_cached(
            "SELECT s.cwd, r.data FROM session_revert r JOIN session s ON s.id = r.session_id
             WHERE s.cwd = ?1 OR s.extra_roots LIKE ?2",
        )?;
        let rows = reverts
            .query_map(params![dir.as_ref(), root], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
        for (owner, data) in rows {
            let revert: SessionRevert = serde_json::from_str(&data)?;
            found.extend(revert.snapshot.map(|id| (owner, id)));
        }
        let mut trees: Vec<String> = found
            .iter()
            .flat_map(|(owner, id)| crate::snapshot::trees_of(id, Path::new(owner), cwd))
            .collect();
        trees.sort();
        trees.dedup();
        Ok(trees)
    }
}
