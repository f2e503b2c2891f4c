//! `session/status` (whether a session is open in this process or only saved, with Tandem's
//! idle / busy / retry in `_meta.tandem.status`) and `session/set_title` (the person's name).

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    SessionStatus, SessionStatusRequest, SessionStatusResponse, SetSessionTitleRequest,
    SetSessionTitleResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use serde_json::json;

use crate::acp::{AcpState, error};
use crate::id::SessionId;

/// Answers from memory and the store; opens, loads and attaches nothing.
pub async fn on_status(
    state: Arc<AcpState>,
    request: SessionStatusRequest,
    responder: Responder<SessionStatusResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id.0.to_string());
    let answer = state.manager().and_then(|manager| {
        let activity = manager.status(&id).map_err(error::from_session)?;
        let status = if manager.is_open(&id) {
            SessionStatus::Open
        } else {
            SessionStatus::Saved
        };
        Ok(SessionStatusResponse::new(status).meta(tandem_status(&activity)))
    });
    responder.respond_with_result(answer)
}

/// Stores the title before answering; the editor shows the stored (normalized) one.
pub async fn on_set_title(
    state: Arc<AcpState>,
    request: SetSessionTitleRequest,
    responder: Responder<SetSessionTitleResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id.0.to_string());
    let renamed = state.manager().and_then(|manager| {
        manager
            .rename(&id, &request.title)
            .map_err(error::from_session)
    });
    responder.respond_with_result(renamed.map(|info| SetSessionTitleResponse::new(info.title)))
}

/// `{"tandem": {"status": {"type": "busy"}}}`: what the session is doing, in Tandem's words.
pub fn tandem_status(
    status: &crate::message::SessionStatus,
) -> serde_json::Map<String, serde_json::Value> {
    let mut meta = serde_json::Map::new();
    meta.insert("tandem".into(), json!({"status": status}));
    meta
}
