//! `session/delete`: removes a session, its subagents' sessions, and the snapshots only they
//! used; a running session is refused. The project's permission approvals stay.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{DeleteSessionRequest, DeleteSessionResponse};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::{AcpState, error};
use crate::id::SessionId;

pub async fn on_delete(
    state: Arc<AcpState>,
    request: DeleteSessionRequest,
    responder: Responder<DeleteSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id.0.to_string());
    let manager = match state.manager() {
        Ok(manager) => manager,
        Err(e) => return responder.respond_with_error(e),
    };
    cx.spawn(async move {
        match manager.delete(&id).await {
            Ok(deleted) => {
                for gone in &deleted {
                    state.hide(gone);
                }
                responder.respond(DeleteSessionResponse::new())
            }
            Err(e) => responder.respond_with_error(error::from_session(e)),
        }
    })
}
