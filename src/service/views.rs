//! The JSON shapes of the session surface, close to OpenCode's `Session.Info` so its clients
//! read them: `id`, `parentID`, `directory`, `title`, `time`, `revert`, and Tandem's `fork`.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::{Params, ServiceError};
use crate::id::SessionId;
use crate::message::{SessionInfo, SessionStatus};
use crate::session::SessionManager;

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

/// A session's record as a listing shows it, serialised straight from the record.
#[derive(Serialize)]
struct Listed<'a> {
    id: &'a SessionId,
    #[serde(rename = "parentID", skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a SessionId>,
    directory: &'a std::path::Path,
    title: &'a str,
    time: Times,
}

#[derive(Serialize)]
struct Times {
    created: i64,
    updated: i64,
}

impl<'a> From<&'a SessionInfo> for Listed<'a> {
    fn from(info: &'a SessionInfo) -> Self {
        Self {
            id: &info.id,
            parent_id: info.parent_id.as_ref(),
            directory: &info.cwd,
            title: &info.title,
            time: Times {
                created: info.created_at,
                updated: info.updated_at,
            },
        }
    }
}

/// Root sessions, newest first, as `{sessions, nextCursor}` (or the bare array), written as
/// JSON text straight from the rows: a listing of ten thousand builds no JSON tree.
pub fn list(
    manager: &SessionManager,
    params: &Params,
    bare: bool,
) -> Result<Box<RawValue>, ServiceError> {
    let limit = params.limit.unwrap_or(LIST_MAX).min(LIST_MAX);
    let page = manager
        .store()
        .list_sessions(params.cwd.as_deref(), params.cursor.as_deref(), limit)
        .map_err(crate::session::SessionError::from)?;
    let sessions: Vec<Listed<'_>> = page.sessions.iter().map(Listed::from).collect();
    if bare {
        return super::raw(&sessions);
    }
    #[derive(Serialize)]
    struct Page<'a> {
        sessions: Vec<Listed<'a>>,
        #[serde(rename = "nextCursor")]
        next_cursor: Option<String>,
    }
    super::raw(&Page {
        sessions,
        next_cursor: page.next_cursor,
    })
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
