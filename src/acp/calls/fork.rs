//! `session/fork` (ACP's unstable fork): a new session holding a copy of the history (up to
//! `_meta.messageId` when given), opened and replayed like `session/load`.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{ForkSessionRequest, ForkSessionResponse};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::calls::{mcp_servers, modes};
use crate::acp::updates::{opened, replay};
use crate::acp::{AcpState, error};
use crate::id::{MessageId, SessionId};

pub async fn on_fork(
    state: Arc<AcpState>,
    request: ForkSessionRequest,
    responder: Responder<ForkSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let source = SessionId(request.session_id.0.to_string());
    // ACP has no fork point; Tandem reads one from `_meta.messageId`.
    let until = request
        .meta
        .as_ref()
        .and_then(|meta| meta.get("messageId"))
        .and_then(|id| id.as_str())
        .map(|id| MessageId(id.to_owned()));
    let servers = mcp_servers::specs(request.mcp_servers);
    let roots = request.additional_directories;
    let prompt = match super::client_prompt::read(request.system_prompt) {
        Ok(prompt) => prompt,
        Err(e) => return responder.respond_with_error(e),
    };
    cx.clone().spawn(async move {
        let forked = state.manager().and_then(|manager| {
            let info = manager
                .fork(&source, until.as_ref())
                .map_err(error::from_session)?;
            let opened = super::session::reopen(&manager, &info.id, (&roots, prompt), servers)?;
            Ok((info.id, opened.messages, opened.view, opened.usage))
        });
        match forked {
            Ok((id, messages, view, usage)) => {
                // The editor learns the copy's id from the answer: its history follows it.
                state.show(&id, &cx);
                responder.respond(
                    ForkSessionResponse::new(id.to_string())
                        .modes(modes::modes(&view, state.air()))
                        .config_options(modes::config_options(&view, state.air())),
                )?;
                replay::send_history(&state, &cx, &id, &messages)?;
                if let Ok(manager) = state.manager() {
                    manager.release_mcp(&id);
                }
                opened::announce(&state, &cx, &id, &view, usage)
            }
            Err(e) => responder.respond_with_error(e),
        }
    })
}
