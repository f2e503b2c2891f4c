//! The control server's JSON-RPC 2.0 methods (over HTTP and WebSocket, by jsonrpsee):
//! `session.<method>` for each of the service's methods, and `session.subscribe`.

use jsonrpsee::server::{PendingSubscriptionSink, RpcModule, SubscriptionMessage};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use serde_json::Value;
use tokio::sync::broadcast;

use super::watch::Event;
use crate::id::SessionId;
use crate::service::{Method, ServiceError, SessionService};

/// Every method, bound to `service`; subscriptions read `events`.
pub fn module(
    service: SessionService,
    events: broadcast::Sender<Event>,
) -> Result<RpcModule<SessionService>, jsonrpsee::core::RegisterMethodError> {
    let mut module = RpcModule::new(service);
    for method in Method::ALL {
        let name: &'static str = Box::leak(format!("session.{}", method.name()).into_boxed_str());
        module.register_async_method(name, move |params, service, _| async move {
            let params = object(&params)?;
            service.call(method, params).await.map_err(to_rpc)
        })?;
    }
    module.register_subscription(
        "session.subscribe",
        "session.event",
        "session.unsubscribe",
        move |params, pending, _, _| subscribe(params, pending, events.subscribe()),
    )?;
    Ok(module)
}

/// Params as one object: named params, or a one-element array holding it, or none.
fn object(params: &Params<'_>) -> Result<Value, ErrorObjectOwned> {
    if params.as_str().is_none() {
        return Ok(Value::Null);
    }
    match params.parse::<Value>()? {
        Value::Array(mut items) if items.len() == 1 => Ok(items.remove(0)),
        Value::Array(items) if items.is_empty() => Ok(Value::Null),
        other => Ok(other),
    }
}

/// Streams events (only `sessionID`'s when given) until the subscriber leaves.
async fn subscribe(
    params: Params<'static>,
    pending: PendingSubscriptionSink,
    mut events: broadcast::Receiver<Event>,
) {
    let only: Option<SessionId> = object(&params)
        .ok()
        .and_then(|p| crate::service::Params::parse(p).ok())
        .and_then(|p| p.session_id);
    let Ok(sink) = pending.accept().await else {
        return;
    };
    loop {
        let event = tokio::select! {
            _ = sink.closed() => return,
            event = events.recv() => event,
        };
        match event {
            Ok(event) => {
                if only.as_ref().is_some_and(|id| *id != event.session_id) {
                    continue;
                }
                let Ok(raw) = serde_json::value::to_raw_value(&event.body) else {
                    continue;
                };
                if sink.send(SubscriptionMessage::from(raw)).await.is_err() {
                    return;
                }
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "a subscriber fell behind; events were dropped");
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// A service error as a JSON-RPC error object (the same codes as over ACP).
pub fn to_rpc(error: ServiceError) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(error.kind.code(), error.message, None::<()>)
}
