//! The loopback redirect of an MCP login: a listener on 127.0.0.1 that takes the one
//! authorization response meant for this login (its `state` must match), hands it over, and
//! shows the browser how the login ended once Tandem knows.

use std::collections::HashMap;
use std::sync::Arc;

use hyper::{Request, Response, StatusCode};
use jsonrpsee::server::HttpBody;
use tokio::sync::{Mutex, mpsc, oneshot};

/// What the authorization server sent back to the redirect.
#[derive(Debug, Clone)]
pub enum Redirected {
    /// A code to exchange (with the server's `iss`, when it names itself).
    Code {
        code: String,
        issuer: Option<String>,
    },
    /// The server refused (`error`, and its description if it gave one).
    Refused(String),
}

/// A redirect that came, and where to send the page the browser then shows.
pub struct Arrival {
    pub redirected: Redirected,
    pub page: oneshot::Sender<Result<String, String>>,
}

/// The listener of one login.
pub struct Callback {
    pub redirect_uri: String,
    arrivals: mpsc::Receiver<Arrival>,
    /// The connections served, so the last page is written before the listener goes.
    connections: Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    /// Stops listening (and every open connection) when the login is over.
    stop: tokio_util::sync::CancellationToken,
}

impl Callback {
    /// Listens on a free loopback port for the redirect whose `state` is `state` (set once
    /// the authorization link is known, with `expect`).
    pub async fn bind() -> std::io::Result<(Self, Expected)> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let (tx, arrivals) = mpsc::channel(1);
        let expected = Expected::default();
        let stop = tokio_util::sync::CancellationToken::new();
        let connections = Arc::new(std::sync::Mutex::new(Vec::new()));
        let serving = (tx, expected.clone(), stop.clone(), connections.clone());
        tokio::spawn(async move {
            let (tx, expected, stop, connections) = serving;
            loop {
                let socket = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok((socket, _)) => socket,
                        Err(_) => break,
                    },
                    _ = stop.cancelled() => break,
                };
                let (tx, expected) = (tx.clone(), expected.clone());
                let handler = tower::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let (tx, expected) = (tx.clone(), expected.clone());
                    async move {
                        Ok::<_, std::convert::Infallible>(answer(request, &tx, &expected).await)
                    }
                });
                let served = jsonrpsee::server::serve_with_graceful_shutdown(
                    socket,
                    handler,
                    stop.clone().cancelled_owned(),
                );
                let handle = tokio::spawn(async move {
                    let _ = served.await;
                });
                connections
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(handle);
            }
        });
        let callback = Callback {
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            arrivals,
            connections,
            stop,
        };
        Ok((callback, expected))
    }

    /// The redirect of this login, when it comes.
    pub async fn arrival(&mut self) -> Option<Arrival> {
        self.arrivals.recv().await
    }

    /// Waits (a little) until the pages asked for are written: each closes its connection.
    pub async fn written(&self) {
        let handles: Vec<_> =
            std::mem::take(&mut *self.connections.lock().unwrap_or_else(|p| p.into_inner()));
        let all = futures::future::join_all(handles);
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), all).await;
    }
}

impl Drop for Callback {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The `state` the login's redirect must carry.
#[derive(Clone, Default)]
pub struct Expected(Arc<Mutex<Option<String>>>);

impl Expected {
    pub async fn set(&self, state: String) {
        *self.0.lock().await = Some(state);
    }
}

async fn answer(
    request: Request<hyper::body::Incoming>,
    tx: &mpsc::Sender<Arrival>,
    expected: &Expected,
) -> Response<HttpBody> {
    if request.uri().path() != "/callback" {
        return page(StatusCode::NOT_FOUND, "Not found.");
    }
    let query: HashMap<String, String> =
        serde_urlencoded::from_str(request.uri().query().unwrap_or_default()).unwrap_or_default();
    let wanted = expected.0.lock().await.clone();
    if wanted.is_none() || query.get("state") != wanted.as_ref() {
        return page(
            StatusCode::BAD_REQUEST,
            "This is not the login Tandem is waiting for.",
        );
    }
    let redirected = match (query.get("code"), query.get("error")) {
        (_, Some(error)) => Redirected::Refused(match query.get("error_description") {
            Some(description) => format!("{error}: {description}"),
            None => error.clone(),
        }),
        (Some(code), None) => Redirected::Code {
            code: code.clone(),
            issuer: query.get("iss").cloned(),
        },
        (None, None) => return page(StatusCode::BAD_REQUEST, "The redirect carries no code."),
    };
    let (page_tx, page_rx) = oneshot::channel();
    let arrival = Arrival {
        redirected,
        page: page_tx,
    };
    if tx.try_send(arrival).is_err() {
        return page(
            StatusCode::CONFLICT,
            "Tandem has this login's answer already.",
        );
    }
    match page_rx.await {
        Ok(Ok(done)) => page(StatusCode::OK, &done),
        Ok(Err(why)) => page(StatusCode::BAD_REQUEST, &why),
        Err(_) => page(StatusCode::GONE, "Tandem stopped waiting for this login."),
    }
}

/// A page of one line for the browser.
fn page(status: StatusCode, text: &str) -> Response<HttpBody> {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let html = format!("<!doctype html><meta charset=utf-8><title>Tandem</title><p>{escaped}</p>");
    let mut response = Response::new(HttpBody::from(html));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // The connection ends with the page, so Tandem knows when it was written.
    headers.insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    response
}
