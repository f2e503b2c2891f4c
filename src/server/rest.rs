//! The seed's HTTP routes (`GET /session`, `GET /session/status`, `GET /session/{id}/diff`,
//! `POST /session/{id}/revert`, …): each maps to one service method and its params.

use std::collections::HashMap;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Method as Verb, Request, Response, StatusCode};
use jsonrpsee::server::HttpBody;
use serde_json::{Value, json};

use crate::service::{ErrorKind, Method, ServiceError, SessionService};

/// Whether `path` is one of the REST routes (everything else goes to JSON-RPC).
pub fn is_route(path: &str) -> bool {
    path == "/session" || path.starts_with("/session/")
}

/// Answers one REST request.
pub async fn answer(service: &SessionService, request: Request<Incoming>) -> Response<HttpBody> {
    let verb = request.method().clone();
    let path = request.uri().path().to_owned();
    let query: HashMap<String, String> = request
        .uri()
        .query()
        .and_then(|q| serde_urlencoded::from_str(q).ok())
        .unwrap_or_default();
    let Some((method, id)) = route(&verb, &path) else {
        let allowed = route(&Verb::GET, &path).or_else(|| route(&Verb::POST, &path));
        return match allowed {
            Some(_) => reply(
                StatusCode::METHOD_NOT_ALLOWED,
                json!({"error": format!("{verb} is not allowed on {path}")}),
            ),
            None => reply(
                StatusCode::NOT_FOUND,
                json!({"error": format!("no route {verb} {path}")}),
            ),
        };
    };
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => return reply(StatusCode::BAD_REQUEST, json!({"error": error.to_string()})),
    };
    let mut params = if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                return reply(
                    StatusCode::BAD_REQUEST,
                    json!({"error": "the body must be a JSON object"}),
                );
            }
        }
    };
    for (key, value) in query {
        let value = match key.as_str() {
            "limit" => value
                .parse::<u64>()
                .map(Value::from)
                .unwrap_or(Value::String(value)),
            "withTools" | "with_tools" => Value::Bool(value == "true" || value == "1"),
            _ => Value::String(value),
        };
        params[key] = value;
    }
    if let Some(id) = id {
        params["sessionID"] = Value::String(id);
    }
    let answer = match method {
        // The seed's `GET /session` is the list itself.
        Method::List => service.list_array(params),
        _ => service.call(method, params).await,
    };
    match answer {
        Ok(raw) => reply_text(StatusCode::OK, raw.get().to_owned()),
        Err(error) => failure(error),
    }
}

/// The service method of `verb path`, and the session id in the path.
fn route(verb: &Verb, path: &str) -> Option<(Method, Option<String>)> {
    let rest = path.strip_prefix("/session")?;
    let segments: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let get = verb == Verb::GET;
    let post = verb == Verb::POST;
    Some(match segments[..] {
        [] if get => (Method::List, None),
        ["status"] if get => (Method::Status, None),
        [id] if get => (Method::Get, Some(id.to_owned())),
        [id, "children"] if get => (Method::Children, Some(id.to_owned())),
        [id, "todo"] if get => (Method::Todo, Some(id.to_owned())),
        [id, "message"] if get => (Method::Messages, Some(id.to_owned())),
        [id, "diff"] if get => (Method::Diff, Some(id.to_owned())),
        [id, "transcript"] if get => (Method::Transcript, Some(id.to_owned())),
        [id, "fork"] if post => (Method::Fork, Some(id.to_owned())),
        [id, "revert"] if post => (Method::Revert, Some(id.to_owned())),
        [id, "unrevert"] if post => (Method::Unrevert, Some(id.to_owned())),
        _ => return None,
    })
}

fn failure(error: ServiceError) -> Response<HttpBody> {
    let status = match error.kind {
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Busy => StatusCode::CONFLICT,
        ErrorKind::Invalid => StatusCode::BAD_REQUEST,
        ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    };
    reply(
        status,
        json!({"error": error.message, "code": error.kind.code()}),
    )
}

pub fn reply(status: StatusCode, body: Value) -> Response<HttpBody> {
    reply_text(status, body.to_string())
}

fn reply_text(status: StatusCode, body: String) -> Response<HttpBody> {
    let mut response = Response::new(HttpBody::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}
