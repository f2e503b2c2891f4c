//! The session service: one table of methods (list, get, status, children, todo, messages,
//! fork, diff, revert, unrevert, transcript) that the ACP extension methods and the control
//! server both call, with one JSON shape each. It holds no logic the session layer has.

mod params;
pub mod transcript;
mod views;

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::session::{SessionError, SessionManager};
pub use params::Params;
pub use transcript::TranscriptFormat;
pub use views::summary as session_summary;

/// A method of the session surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    List,
    Get,
    Status,
    Children,
    Todo,
    Messages,
    Fork,
    Diff,
    Revert,
    Unrevert,
    Transcript,
}

impl Method {
    pub const ALL: [Method; 11] = [
        Method::List,
        Method::Get,
        Method::Status,
        Method::Children,
        Method::Todo,
        Method::Messages,
        Method::Fork,
        Method::Diff,
        Method::Revert,
        Method::Unrevert,
        Method::Transcript,
    ];

    /// The method's name, as in `session.<name>` and `_tandem/session/<name>`.
    pub fn name(self) -> &'static str {
        match self {
            Method::List => "list",
            Method::Get => "get",
            Method::Status => "status",
            Method::Children => "children",
            Method::Todo => "todo",
            Method::Messages => "messages",
            Method::Fork => "fork",
            Method::Diff => "diff",
            Method::Revert => "revert",
            Method::Unrevert => "unrevert",
            Method::Transcript => "transcript",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Why a call failed, in a kind each transport maps to its own code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceError {
    pub kind: ErrorKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No such session (or message, or part).
    NotFound,
    /// The session is running a turn.
    Busy,
    /// The parameters are wrong.
    Invalid,
    Internal,
}

impl ErrorKind {
    /// The JSON-RPC error code, the same over ACP and the control server: -32002 for what is
    /// not there, -32010 for a busy session, -32602 for bad parameters.
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::NotFound => -32002,
            ErrorKind::Busy => -32010,
            ErrorKind::Invalid => -32602,
            ErrorKind::Internal => -32603,
        }
    }
}

impl ServiceError {
    pub fn invalid(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Invalid,
            message: message.into(),
        }
    }
}

impl From<SessionError> for ServiceError {
    fn from(error: SessionError) -> Self {
        let kind = match &error {
            SessionError::NotFound(_)
            | SessionError::MessageNotFound { .. }
            | SessionError::PartNotFound { .. } => ErrorKind::NotFound,
            SessionError::Busy(_) => ErrorKind::Busy,
            SessionError::Snapshot(crate::snapshot::SnapshotError::Outside { .. }) => {
                ErrorKind::Invalid
            }
            _ => ErrorKind::Internal,
        };
        Self {
            kind,
            message: error.to_string(),
        }
    }
}

/// The session surface over a manager.
#[derive(Clone)]
pub struct SessionService {
    manager: Arc<SessionManager>,
}

impl SessionService {
    pub fn new(manager: Arc<SessionManager>) -> Self {
        Self { manager }
    }

    pub fn manager(&self) -> &Arc<SessionManager> {
        &self.manager
    }

    /// Runs `method` with `params` (a JSON object; see `Params`); the answer is JSON text.
    pub async fn call(&self, method: Method, params: Value) -> Result<Box<RawValue>, ServiceError> {
        let params = Params::parse(params)?;
        if method == Method::List {
            return views::list(&self.manager, &params, false);
        }
        raw(&self.value(method, params).await?)
    }

    /// `list`'s sessions alone, as a bare array (the seed's `GET /session`).
    pub fn list_array(&self, params: Value) -> Result<Box<RawValue>, ServiceError> {
        views::list(&self.manager, &Params::parse(params)?, true)
    }

    async fn value(&self, method: Method, params: Params) -> Result<Value, ServiceError> {
        let manager = &self.manager;
        Ok(match method {
            Method::List => unreachable!("answered as raw JSON"),
            Method::Get => views::session(manager, &manager.stored(&params.session()?)?)?,
            Method::Status => match &params.session_id {
                Some(id) => views::status(&manager.status(id)?),
                None => views::statuses(&manager.statuses()?),
            },
            Method::Children => {
                let children = manager.children(&params.session()?)?;
                Value::Array(
                    children
                        .iter()
                        .map(|c| views::session(manager, c))
                        .collect::<Result<_, _>>()?,
                )
            }
            Method::Todo => {
                serde_json::to_value(manager.todos(&params.session()?)?).map_err(internal)?
            }
            Method::Messages => {
                let (_, messages) = manager.history(&params.session()?)?;
                serde_json::to_value(messages).map_err(internal)?
            }
            Method::Fork => {
                let info = manager.fork(&params.session()?, params.message_id.as_ref())?;
                views::session(manager, &info)?
            }
            Method::Diff => {
                let id = params.session()?;
                let changes = manager
                    .diff(
                        &id,
                        params.message_id.as_ref(),
                        params.to_message_id.as_ref(),
                    )
                    .await?;
                serde_json::to_value(changes).map_err(internal)?
            }
            Method::Revert => {
                let id = params.session()?;
                let message = params
                    .message_id
                    .clone()
                    .ok_or_else(|| ServiceError::invalid("revert needs `messageID`"))?;
                manager.revert(&id, message, params.part_id.clone()).await?;
                views::session(manager, &manager.stored(&id)?)?
            }
            Method::Unrevert => {
                let id = params.session()?;
                manager.unrevert(&id).await?;
                views::session(manager, &manager.stored(&id)?)?
            }
            Method::Transcript => {
                let (info, messages) = manager.history(&params.session()?)?;
                let format = params.format.unwrap_or(TranscriptFormat::Markdown);
                let text = transcript::render(&info, &messages, format, params.with_tools);
                json!({"format": format.name(), "transcript": text})
            }
        })
    }
}

/// `value` as JSON text.
pub(crate) fn raw(value: &impl serde::Serialize) -> Result<Box<RawValue>, ServiceError> {
    serde_json::value::to_raw_value(value).map_err(internal)
}

fn internal(error: impl std::fmt::Display) -> ServiceError {
    ServiceError {
        kind: ErrorKind::Internal,
        message: error.to_string(),
    }
}
