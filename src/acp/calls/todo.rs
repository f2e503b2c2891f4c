//! `_tandem/session/todo`: an ACP extension request returning a session's todo list in the
//! seeds' shape (`{todos: [{id, content, status, priority}]}`), for clients that want it raw.

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, JsonRpcRequest, JsonRpcResponse};
use serde::{Deserialize, Serialize};

use crate::acp::{AcpState, error};
use crate::id::SessionId;
use crate::todo::Todo;

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_tandem/session/todo", response = TodoListResponse)]
#[serde(rename_all = "camelCase")]
pub struct TodoListRequest {
    pub session_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
pub struct TodoListResponse {
    pub todos: Vec<Todo>,
}

pub async fn on_todo_list(
    state: Arc<AcpState>,
    request: TodoListRequest,
    responder: Responder<TodoListResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = SessionId(request.session_id);
    let todos = state
        .manager()
        .and_then(|manager| manager.todos(&id).map_err(error::from_session));
    responder.respond_with_result(todos.map(|todos| TodoListResponse { todos }))
}
