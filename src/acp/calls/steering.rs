//! `_session/steering`, in the shape the first-party adapters share: the person's words go into
//! the running turn at its next step (`injected`); with no turn running they start one of their
//! own (`startedNewTurn`), unless the client asked for `promptRequired` then. A session that
//! cannot take them answers `failed` with the reason. Advertised as `_meta.steering` in the
//! `initialize` answer.

use std::sync::Arc;

use agent_client_protocol::v1::schema::ContentBlock;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::acp::AcpState;
use crate::id::SessionId;
use crate::session::Steered;

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_session/steering", response = SteeringResponse)]
#[serde(rename_all = "camelCase")]
pub struct SteeringRequest {
    pub session_id: String,
    pub prompt: Vec<ContentBlock>,
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

/// `{outcome}`, and `reason` when it is `promptRequired` or `failed`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
#[serde(rename_all = "camelCase")]
pub struct SteeringResponse {
    pub outcome: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl SteeringResponse {
    fn said(outcome: &str, reason: Option<String>) -> Self {
        Self {
            outcome: outcome.to_owned(),
            reason,
        }
    }
}

pub async fn on_steering(
    state: Arc<AcpState>,
    request: SteeringRequest,
    responder: Responder<SteeringResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let content = match super::prompt::parts_from_prompt(request.prompt) {
        Ok(content) => content,
        Err(e) => return responder.respond_with_error(e),
    };
    let prompt_required = request
        .meta
        .as_ref()
        .and_then(|meta| meta["steering"]["idleBehavior"].as_str())
        == Some("promptRequired");
    let id = SessionId(request.session_id);
    let port = Arc::new(state.port(&cx));
    cx.spawn(async move {
        let steered = match state.manager() {
            Ok(manager) => manager
                .steer(&id, content, port, !prompt_required)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.message),
        };
        let answer = match steered {
            Ok(Steered::Injected) => SteeringResponse::said("injected", None),
            Ok(Steered::StartedNewTurn) => SteeringResponse::said("startedNewTurn", None),
            Ok(Steered::PromptRequired) => {
                SteeringResponse::said("promptRequired", Some("noRunningTurn".into()))
            }
            Err(reason) => SteeringResponse::said("failed", Some(reason)),
        };
        responder.respond(answer)
    })
}
