//! Core errors → JSON-RPC errors the editor shows: `-32002` for unknown sessions,
//! `-32000` (auth_required) for missing or rejected credentials, messages a person can act on.

use agent_client_protocol::Error;
use serde_json::json;

use crate::session::SessionError;

const RESOURCE_NOT_FOUND: i32 = -32002;
const INTERNAL_ERROR: i32 = -32603;
const INVALID_PARAMS: i32 = -32602;
/// In the implementation-defined server error range: the session is running a turn.
const SESSION_BUSY: i32 = -32010;

pub fn from_session(error: SessionError) -> Error {
    let message = error.to_string();
    match error {
        SessionError::NotFound(id) => Error::new(
            RESOURCE_NOT_FOUND,
            format!("Session {id} not found: create it with session/new, or open it with session/load or session/resume"),
        )
        .data(json!({"sessionId": id.as_str()})),
        SessionError::Provider(provider) if provider.is_auth() => auth_required(message),
        SessionError::RelativeCwd(_)
        | SessionError::BadRoot(_)
        | SessionError::UnknownApproval { .. }
        | SessionError::UnknownMode { .. }
        | SessionError::UnknownModel { .. }
        | SessionError::EmptyTitle
        | SessionError::Unsupported(_)
        | SessionError::UnknownVariant { .. }
        | SessionError::MessageNotFound { .. }
        | SessionError::PartNotFound { .. } => Error::new(INVALID_PARAMS, message),
        SessionError::Busy(id) => {
            Error::new(SESSION_BUSY, message).data(json!({"sessionId": id.as_str(), "status": "busy"}))
        }
        _ => Error::new(INTERNAL_ERROR, message),
    }
}

/// The error for a request that needs a key Tandem does not have, naming the ways to give one.
pub fn auth_required(message: String) -> Error {
    Error::new(-32000, message).data(json!({
        "authMethods": [crate::auth::ENV_METHOD, crate::auth::LOGIN_METHOD],
        "help": crate::auth::how_to_give_a_key(),
    }))
}
