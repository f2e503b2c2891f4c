//! `_tandem/session/{status, diff, revert, unrevert, fork, get, list, messages, transcript}`:
//! the session service's methods as ACP extension requests, answered from the same code the
//! control server calls (`todo` and `children` keep their own typed handlers).

use std::sync::Arc;

use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error, JsonRpcMessage, JsonRpcRequest, UntypedMessage};
use serde_json::{Value, json};

use crate::acp::AcpState;
use crate::service::{Method, ServiceError, SessionService};

const PREFIX: &str = "_tandem/session/";

/// A request for one of the service's methods.
#[derive(Debug, Clone)]
pub struct ServiceRequest {
    method: String,
    params: Value,
}

impl ServiceRequest {
    fn service_method(method: &str) -> Option<Method> {
        let name = method.strip_prefix(PREFIX)?;
        Method::from_name(name).filter(|m| !matches!(m, Method::Todo | Method::Children))
    }
}

impl JsonRpcMessage for ServiceRequest {
    fn matches_method(method: &str) -> bool {
        Self::service_method(method).is_some()
    }

    fn method(&self) -> &str {
        &self.method
    }

    fn to_untyped_message(&self) -> Result<UntypedMessage, Error> {
        UntypedMessage::new(&self.method, &self.params)
    }

    fn parse_message(method: &str, params: &Value) -> Result<Self, Error> {
        if !Self::matches_method(method) {
            return Err(Error::method_not_found());
        }
        Ok(Self {
            method: method.to_owned(),
            params: params.clone(),
        })
    }
}

impl JsonRpcRequest for ServiceRequest {
    type Response = Value;
}

pub async fn on_service(
    state: Arc<AcpState>,
    request: ServiceRequest,
    responder: Responder<Value>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let Some(method) = ServiceRequest::service_method(&request.method) else {
        return responder.respond_with_result(Err(Error::method_not_found()));
    };
    let manager = match state.manager() {
        Ok(manager) => manager,
        Err(error) => return responder.respond_with_result(Err(error)),
    };
    // Reverts and diffs run git: off the dispatch loop.
    cx.spawn(async move {
        let service = SessionService::new(manager);
        let result = service.call(method, request.params).await.and_then(|raw| {
            serde_json::from_str(raw.get()).map_err(|e| ServiceError {
                kind: crate::service::ErrorKind::Internal,
                message: e.to_string(),
            })
        });
        responder.respond_with_result(result.map_err(to_acp))
    })
}

/// A service error as a JSON-RPC error (codes from `ErrorKind::code`).
pub fn to_acp(error: ServiceError) -> Error {
    Error::new(error.kind.code(), error.message.clone()).data(json!({"reason": error.message}))
}
