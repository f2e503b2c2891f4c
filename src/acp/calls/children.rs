//! `_tandem/session/children`: the sessions a session delegated to (its subagents' child
//! sessions), oldest first, each loadable like any other session.

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};

use crate::acp::{AcpState, error};
use crate::id::{self, SessionId};

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_tandem/session/children", response = ChildrenResponse)]
#[serde(rename_all = "camelCase")]
pub struct ChildrenRequest {
    pub session_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
pub struct ChildrenResponse {
    pub sessions: Vec<ChildSession>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildSession {
    pub session_id: String,
    pub parent_id: String,
    pub title: String,
    pub updated_at: String,
}

pub async fn on_children(
    state: Arc<AcpState>,
    request: ChildrenRequest,
    responder: Responder<ChildrenResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let parent = SessionId(request.session_id);
    let children = state
        .manager()
        .and_then(|manager| manager.children(&parent).map_err(error::from_session));
    responder.respond_with_result(children.map(|children| {
        ChildrenResponse {
            sessions: children
                .into_iter()
                .map(|c| ChildSession {
                    session_id: c.id.to_string(),
                    parent_id: parent.to_string(),
                    title: c.title,
                    updated_at: id::iso8601(c.updated_at),
                })
                .collect(),
        }
    }))
}
