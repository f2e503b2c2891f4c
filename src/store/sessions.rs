//! Session rows: create, fetch, list by recency with a cursor, retitle and touch.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, Row, params};

use super::{Result, Store};
use crate::id::SessionId;
use crate::message::SessionInfo;

/// One page of `list_sessions`: newest first, and the cursor of the next page if any.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionPage {
    pub sessions: Vec<SessionInfo>,
    pub next_cursor: Option<String>,
}

fn session_from_row(row: &Row<'_>) -> rusqlite::Result<SessionInfo> {
    Ok(SessionInfo {
        id: SessionId(row.get(0)?),
        parent_id: row.get::<_, Option<String>>(1)?.map(SessionId),
        cwd: PathBuf::from(row.get::<_, String>(2)?),
        title: row.get(3)?,
        created_at: row.get(4)?,
        updated_at: row.get(5)?,
    })
}

const SESSION_COLUMNS: &str = "id, parent_id, cwd, title, created_at, updated_at";

/// A cursor is `<updated_at>:<id>` of the last session on the previous page.
fn parse_cursor(cursor: &str) -> Option<(i64, String)> {
    let (updated, id) = cursor.split_once(':')?;
    Some((updated.parse().ok()?, id.to_owned()))
}

impl Store {
    pub fn create_session(&self, info: &SessionInfo) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session (id, parent_id, cwd, title, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                info.id.as_str(),
                info.parent_id.as_ref().map(|p| p.as_str()),
                info.cwd.to_string_lossy(),
                info.title,
                info.created_at,
                info.updated_at
            ],
        )?;
        Ok(())
    }

    pub fn get_session(&self, id: &SessionId) -> Result<Option<SessionInfo>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM session WHERE id = ?1");
        Ok(self
            .conn()
            .query_row(&sql, [id.as_str()], session_from_row)
            .optional()?)
    }

    /// Root sessions (no parent), newest first, optionally only those in `cwd`.
    /// An unreadable cursor starts from the beginning.
    pub fn list_sessions(
        &self,
        cwd: Option<&Path>,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<SessionPage> {
        let (after_updated, after_id) = cursor
            .and_then(parse_cursor)
            .unwrap_or((i64::MAX, String::new()));
        let cwd = cwd.map(|c| c.to_string_lossy().into_owned());
        let sql = format!(
            "SELECT {SESSION_COLUMNS} FROM session
             WHERE parent_id IS NULL
               AND (?1 IS NULL OR cwd = ?1)
               AND (updated_at < ?2 OR (updated_at = ?2 AND (?3 = '' OR id < ?3)))
             ORDER BY updated_at DESC, id DESC
             LIMIT ?4"
        );
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql)?;
        let mut sessions = stmt
            .query_map(
                params![cwd, after_updated, after_id, limit as i64 + 1],
                session_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let next_cursor = if sessions.len() > limit {
            sessions.truncate(limit);
            sessions
                .last()
                .map(|last| format!("{}:{}", last.updated_at, last.id))
        } else {
            None
        };
        Ok(SessionPage {
            sessions,
            next_cursor,
        })
    }

    pub fn set_session_title(&self, id: &SessionId, title: &str, updated_at: i64) -> Result<()> {
        self.conn().execute(
            "UPDATE session SET title = ?2, updated_at = ?3 WHERE id = ?1",
            params![id.as_str(), title, updated_at],
        )?;
        Ok(())
    }

    /// Replaces the title only if it is still `expected` (the person may have renamed it);
    /// true if it was replaced.
    pub fn replace_session_title(
        &self,
        id: &SessionId,
        expected: &str,
        title: &str,
        updated_at: i64,
    ) -> Result<bool> {
        let changed = self.conn().execute(
            "UPDATE session SET title = ?3, updated_at = ?4 WHERE id = ?1 AND title = ?2",
            params![id.as_str(), expected, title, updated_at],
        )?;
        Ok(changed > 0)
    }

    pub fn touch_session(&self, id: &SessionId, updated_at: i64) -> Result<()> {
        self.conn().execute(
            "UPDATE session SET updated_at = ?2 WHERE id = ?1",
            params![id.as_str(), updated_at],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, cwd: &str, updated: i64, parent: Option<&str>) -> SessionInfo {
        SessionInfo {
            id: SessionId::from(id),
            parent_id: parent.map(SessionId::from),
            cwd: PathBuf::from(cwd),
            title: format!("title {id}"),
            created_at: updated,
            updated_at: updated,
        }
    }

    #[test]
    fn lists_roots_newest_first_with_cursor_and_cwd_filter() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store.create_session(&session("a", "/p", 1, None)).unwrap();
        store.create_session(&session("b", "/p", 3, None)).unwrap();
        store.create_session(&session("c", "/q", 2, None)).unwrap();
        store.create_session(&session("d", "/p", 2, None)).unwrap();
        store
            .create_session(&session("e", "/p", 9, Some("a")))
            .unwrap();

        let first = store.list_sessions(Some(Path::new("/p")), None, 2).unwrap();
        let ids: Vec<_> = first.sessions.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["b", "d"]);
        let second = store
            .list_sessions(Some(Path::new("/p")), first.next_cursor.as_deref(), 2)
            .unwrap();
        let ids: Vec<_> = second.sessions.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a"]);
        assert_eq!(second.next_cursor, None);

        let all = store.list_sessions(None, None, 10).unwrap();
        assert_eq!(all.sessions.len(), 4);
    }

    #[test]
    fn reopening_keeps_rows_and_schema_version() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open_in(dir.path()).unwrap();
            store.create_session(&session("a", "/p", 1, None)).unwrap();
        }
        let store = Store::open_in(dir.path()).unwrap();
        let found = store.get_session(&SessionId::from("a")).unwrap().unwrap();
        assert_eq!(found.title, "title a");
    }
}
