//! The JSON shapes of the session surface, close to OpenCode's `Session.Info` so its clients
//! read them: `id`, `parentID`, `directory`, `title`, `time`, `revert`, and Tandem's `fork`.

use std::collections::HashMap;

use std::cell::RefCell;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{Params, ServiceError};
use crate::id::SessionId;
use crate::message::{SessionInfo, SessionStatus};
use crate::session::SessionManager;
use crate::store::Store;

/// The most sessions one `list` answers with.
const LIST_MAX: usize = 1_000_000;

/// A session's record only (what a listing shows).
pub fn summary(info: &SessionInfo) -> Value {
    let mut view = json!({
        "id": info.id,
        "directory": info.cwd,
        "title": info.title,
        "time": {"created": info.created_at, "updated": info.updated_at},
    });
    if let Some(parent) = &info.parent_id {
        view["parentID"] = json!(parent);
    }
    view
}

/// A session with its pending revert and where it was forked from.
pub fn session(manager: &SessionManager, info: &SessionInfo) -> Result<Value, ServiceError> {
    let mut view = summary(info);
    if let Some(revert) = manager.pending_revert(&info.id)? {
        view["revert"] = json!({
            "messageID": revert.message_id,
            "partID": revert.part_id,
            "snapshot": revert.snapshot,
            "files": revert.files,
            "diff": revert.diff,
        });
    }
    if let Some(origin) = manager.fork_origin(&info.id)? {
        view["fork"] = json!({
            "sessionID": origin.session_id,
            "messageID": origin.message_id,
            "number": origin.number,
        });
    }
    Ok(view)
}

/// A session's record as a listing shows it, serialised straight from the borrowed row.
#[derive(Serialize)]
struct Listed<'a> {
    id: &'a str,
    #[serde(rename = "parentID", skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a str>,
    directory: &'a str,
    title: &'a str,
    time: Times,
}

#[derive(Serialize)]
struct Times {
    created: i64,
    updated: i64,
}

/// Root sessions, newest first, as `{"sessions": [...], "nextCursor": ...}` (or the bare
/// array), serialised while the rows are read: a listing of ten thousand builds no records
/// and no JSON tree.
pub fn list(
    manager: &SessionManager,
    params: &Params,
    bare: bool,
) -> Result<Box<RawValue>, ServiceError> {
    let rows = Rows {
        store: manager.store(),
        params,
        next: RefCell::new(None),
    };
    if bare {
        return super::raw(&rows);
    }
    super::raw(&Page { sessions: rows })
}

/// The listing's rows, read from the store as they are serialised; the next page's cursor is
/// known once they are.
struct Rows<'a> {
    store: &'a Store,
    params: &'a Params,
    next: RefCell<Option<String>>,
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let limit = self.params.limit.unwrap_or(LIST_MAX).min(LIST_MAX);
        let mut seq = serializer.serialize_seq(None)?;
        let mut failed = None;
        let next = self
            .store
            .visit_sessions(
                self.params.cwd.as_deref(),
                self.params.cursor.as_deref(),
                limit,
                |row| {
                    if failed.is_some() {
                        return;
                    }
                    let listed = Listed {
                        id: row.id,
                        parent_id: row.parent_id,
                        directory: row.cwd,
                        title: row.title,
                        time: Times {
                            created: row.created_at,
                            updated: row.updated_at,
                        },
                    };
                    if let Err(error) = seq.serialize_element(&listed) {
                        failed = Some(error);
                    }
                },
            )
            .map_err(S::Error::custom)?;
        if let Some(error) = failed {
            return Err(error);
        }
        *self.next.borrow_mut() = next;
        seq.end()
    }
}

/// `{"sessions": [...], "nextCursor": ...}`: the cursor after the rows that decide it.
struct Page<'a> {
    sessions: Rows<'a>,
}

impl Serialize for Page<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut page = serializer.serialize_struct("Page", 2)?;
        page.serialize_field("sessions", &self.sessions)?;
        page.serialize_field("nextCursor", &*self.sessions.next.borrow())?;
        page.end()
    }
}

pub fn status(status: &SessionStatus) -> Value {
    serde_json::to_value(status).unwrap_or(Value::Null)
}

/// Every session that is not idle, by id (a session absent from the map is idle).
pub fn statuses(statuses: &HashMap<SessionId, SessionStatus>) -> Value {
    Value::Object(
        statuses
            .iter()
            .map(|(id, s)| (id.to_string(), status(s)))
            .collect(),
    )
}
