//! `_session/rewind`, in codex-acp's shape: the person's message `beforeMessage` names (by id,
//! else by `messageFingerprint` and `messageOccurrence`) and everything after it leave the
//! conversation, in the same session. Tandem adds `files` (put back what those turns changed;
//! on unless false) and `dryRun` (say what would go, do nothing). Answered `{rewound: true}`
//! only once done, with the messages dropped and the files put back; `/redo` brings it back.
//! `_tandem/session/revert` stays as the older name of the same revert.

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};

use crate::acp::AcpState;
use crate::id::SessionId;
use crate::session::MessageRef;

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_session/rewind", response = RewindResponse)]
#[serde(rename_all = "camelCase")]
pub struct RewindRequest {
    pub session_id: String,
    pub before_message: MessageSelector,
    /// The last message of the agent's the client keeps (checked by the client, not here).
    #[serde(default)]
    pub resume_at_message: Option<MessageSelector>,
    #[serde(default)]
    pub files: Option<bool>,
    #[serde(default)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSelector {
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub message_fingerprint: Option<String>,
    #[serde(default)]
    pub message_occurrence: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
#[serde(rename_all = "camelCase")]
pub struct RewindResponse {
    pub rewound: bool,
    pub session_id: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    pub messages_dropped: usize,
    pub files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

pub async fn on_rewind(
    state: Arc<AcpState>,
    request: RewindRequest,
    responder: Responder<RewindResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id.clone());
    let target = MessageRef {
        id: request.before_message.message_id.clone(),
        fingerprint: request.before_message.message_fingerprint.clone(),
        occurrence: request.before_message.message_occurrence,
    };
    let (files, dry_run) = (request.files.unwrap_or(true), request.dry_run);
    cx.spawn(async move {
        let done = match state.manager() {
            Ok(manager) => manager
                .rewind(&id, &target, files, dry_run)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.message),
        };
        let answer = match done {
            Ok((rewound, plan)) => RewindResponse {
                rewound,
                session_id: request.session_id,
                dry_run,
                messages_dropped: plan.messages,
                files: plan.files,
                reason: None,
            },
            Err(reason) => RewindResponse {
                rewound: false,
                session_id: request.session_id,
                dry_run,
                messages_dropped: 0,
                files: Vec::new(),
                reason: Some(reason),
            },
        };
        responder.respond(answer)
    })
}
