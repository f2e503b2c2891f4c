//! Session rows: create, fetch, list by recency with a cursor, retitle and touch.

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, Row, params};

use super::{Result, Store};
use crate::id::SessionId;
use crate::message::SessionInfo;

/// A session row as `visit_sessions` lends it.
#[derive(Debug, Clone, Copy)]
pub struct SessionRow<'a> {
    pub id: &'a str,
    pub parent_id: Option<&'a str>,
    pub cwd: &'a str,
    pub title: &'a str,
    pub created_at: i64,
    pub updated_at: i64,
    /// The extra roots as stored (a JSON array), if any.
    pub extra_roots: Option<&'a str>,
}

impl SessionRow<'_> {
    /// The extra roots, read.
    pub fn roots(&self) -> Vec<PathBuf> {
        read_roots(self.extra_roots)
    }
}

fn read_roots(stored: Option<&str>) -> Vec<PathBuf> {
    stored
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

fn write_roots(roots: &[PathBuf]) -> Option<String> {
    (!roots.is_empty()).then(|| serde_json::to_string(roots).unwrap_or_default())
}

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
        extra_roots: read_roots(row.get::<_, Option<String>>(6)?.as_deref()),
        title: row.get(3)?,
        created_at: row.get(4)?,
        updated_at: row.get(5)?,
    })
}

const SESSION_COLUMNS: &str = "id, parent_id, cwd, title, created_at, updated_at, extra_roots";

/// A cursor is `<updated_at>:<id>` of the last session on the previous page.
fn parse_cursor(cursor: &str) -> Option<(i64, String)> {
    let (updated, id) = cursor.split_once(':')?;
    Some((updated.parse().ok()?, id.to_owned()))
}

impl Store {
    pub fn create_session(&self, info: &SessionInfo) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session (id, parent_id, cwd, title, created_at, updated_at, extra_roots)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                info.id.as_str(),
                info.parent_id.as_ref().map(|p| p.as_str()),
                info.cwd.to_string_lossy(),
                info.title,
                info.created_at,
                info.updated_at,
                write_roots(&info.extra_roots),
            ],
        )?;
        Ok(())
    }

    /// Replaces the session's extra roots (a load or resume activates exactly those it names).
    pub fn set_session_roots(&self, id: &SessionId, roots: &[PathBuf]) -> Result<()> {
        self.conn().execute(
            "UPDATE session SET extra_roots = ?2 WHERE id = ?1",
            params![id.as_str(), write_roots(roots)],
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
        let mut sessions = Vec::new();
        let next_cursor = self.visit_sessions(cwd, cursor, limit, |row| {
            sessions.push(SessionInfo {
                id: SessionId(row.id.to_owned()),
                parent_id: row.parent_id.map(|p| SessionId(p.to_owned())),
                cwd: PathBuf::from(row.cwd),
                extra_roots: row.roots(),
                title: row.title.to_owned(),
                created_at: row.created_at,
                updated_at: row.updated_at,
            })
        })?;
        Ok(SessionPage {
            sessions,
            next_cursor,
        })
    }

    /// `list_sessions` without building records: `visit` sees each row borrowed from SQLite
    /// (a listing of thousands is written out as it is read). Returns the next page's cursor.
    pub fn visit_sessions(
        &self,
        cwd: Option<&Path>,
        cursor: Option<&str>,
        limit: usize,
        mut visit: impl FnMut(SessionRow<'_>),
    ) -> Result<Option<String>> {
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
        let mut rows = stmt.query(params![cwd, after_updated, after_id, limit as i64 + 1])?;
        let mut seen = 0;
        let mut last: Option<(i64, String)> = None;
        while let Some(row) = rows.next()? {
            if seen == limit {
                return Ok(last.map(|(updated, id)| format!("{updated}:{id}")));
            }
            seen += 1;
            let text = |i: usize| -> rusqlite::Result<&str> {
                row.get_ref(i)?.as_str().map_err(rusqlite::Error::from)
            };
            let visited = SessionRow {
                id: text(0)?,
                parent_id: row
                    .get_ref(1)?
                    .as_str_or_null()
                    .map_err(rusqlite::Error::from)?,
                cwd: text(2)?,
                title: text(3)?,
                created_at: row.get(4)?,
                updated_at: row.get(5)?,
                extra_roots: row
                    .get_ref(6)?
                    .as_str_or_null()
                    .map_err(rusqlite::Error::from)?,
            };
            if seen == limit {
                last = Some((visited.updated_at, visited.id.to_owned()));
            }
            visit(visited);
        }
        Ok(None)
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

    /// The sessions with `ids`, in that order (ids no longer stored are skipped).
    pub(super) fn sessions_with_ids(&self, ids: Vec<String>) -> Result<Vec<SessionInfo>> {
        let mut sessions = Vec::with_capacity(ids.len());
        for id in ids {
            sessions.extend(self.get_session(&SessionId(id))?);
        }
        Ok(sessions)
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
            extra_roots: Vec::new(),
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
