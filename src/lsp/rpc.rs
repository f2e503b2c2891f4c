//! JSON-RPC 2.0 with a language server over its stdio, framed by `Content-Length` headers:
//! requests with ids and a bounded wait, notifications both ways, and answers to the few
//! requests servers send their client (settings, progress tokens, registrations).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// The largest message read from a server (a workspace's symbols can be large).
const MAX_MESSAGE: usize = 64 << 20;

/// What the client does with what the server sends unasked.
pub(super) trait Handler: Send + Sync + 'static {
    /// A notification (`textDocument/publishDiagnostics`, `$/progress`, log messages).
    fn notified(&self, method: &str, params: Value);
    /// A request from the server; the result, or an error message.
    fn asked(&self, method: &str, params: &Value) -> Result<Value, String>;
}

type Waiter = oneshot::Sender<Result<Value, String>>;

/// One connection to a server.
pub(super) struct Rpc {
    out: mpsc::UnboundedSender<Vec<u8>>,
    pending: Mutex<HashMap<i64, Waiter>>,
    next_id: AtomicI64,
    /// Cancelled when the server's stdout ends (it exited or crashed).
    pub closed: CancellationToken,
}

impl Rpc {
    /// Speaks over `input` (the server's stdout) and `output` (its stdin) from now on.
    pub fn start(
        input: impl AsyncRead + Unpin + Send + 'static,
        output: impl AsyncWrite + Unpin + Send + 'static,
        handler: std::sync::Arc<dyn Handler>,
    ) -> std::sync::Arc<Self> {
        let (out, rx) = mpsc::unbounded_channel();
        let rpc = std::sync::Arc::new(Self {
            out,
            pending: Mutex::default(),
            next_id: AtomicI64::new(1),
            closed: CancellationToken::new(),
        });
        tokio::spawn(write_all(output, rx));
        let reader = rpc.clone();
        tokio::spawn(async move {
            let mut input = BufReader::new(input);
            while let Some(message) = read_message(&mut input).await {
                reader.dispatch(message, handler.as_ref());
            }
            reader.closed.cancel();
            let waiters: Vec<Waiter> = reader.lock().drain().map(|(_, w)| w).collect();
            for waiter in waiters {
                let _ = waiter.send(Err("the language server exited".into()));
            }
        });
        rpc
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Waiter>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sends a request and waits (at most `limit`) for its answer.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, String> {
        if self.closed.is_cancelled() {
            return Err("the language server has exited".into());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, tx);
        self.send(&message(Some(id), method, params));
        match tokio::time::timeout(limit, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err("the language server has exited".into()),
            Err(_) => {
                self.lock().remove(&id);
                self.notify("$/cancelRequest", json!({"id": id}));
                Err(format!(
                    "no answer to {method} within {} ms",
                    limit.as_millis()
                ))
            }
        }
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(&message(None, method, params));
    }

    fn send(&self, message: &Value) {
        let body = message.to_string();
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(body.as_bytes());
        let _ = self.out.send(framed);
    }

    fn dispatch(&self, message: Value, handler: &dyn Handler) {
        let method = message.get("method").and_then(Value::as_str);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match (method, message.get("id")) {
            (Some(method), Some(id)) => {
                let reply = match handler.asked(method, &params) {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    Err(why) => json!({"jsonrpc": "2.0", "id": id,
                                       "error": {"code": -32601, "message": why}}),
                };
                self.send(&reply);
            }
            (Some(method), None) => handler.notified(method, params),
            (None, Some(id)) => {
                let Some(waiter) = id.as_i64().and_then(|id| self.lock().remove(&id)) else {
                    return;
                };
                let answer = match message.get("error") {
                    Some(error) => Err(error
                        .get("message")
                        .and_then(Value::as_str)
                        .unwrap_or("the language server refused the request")
                        .to_owned()),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = waiter.send(answer);
            }
            (None, None) => {}
        }
    }
}

/// A request (with `id`) or notification; no `params` when they are null (`shutdown`, `exit`).
fn message(id: Option<i64>, method: &str, params: Value) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(id) = id {
        message["id"] = id.into();
    }
    if !params.is_null() {
        message["params"] = params;
    }
    message
}

async fn write_all(mut output: impl AsyncWrite + Unpin, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(bytes) = rx.recv().await {
        if output.write_all(&bytes).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

/// The next message, or None at the end of the stream (or on a frame that cannot be read).
async fn read_message(input: &mut (impl AsyncBufReadExt + Unpin)) -> Option<Value> {
    loop {
        let mut length = None;
        let mut line = String::new();
        loop {
            line.clear();
            if input.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let length = length.filter(|n| *n <= MAX_MESSAGE)?;
        let mut body = vec![0; length];
        input.read_exact(&mut body).await.ok()?;
        match serde_json::from_slice(&body) {
            Ok(message) => return Some(message),
            Err(error) => {
                tracing::debug!(%error, "a language server sent a message that is not JSON")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn frames_are_read_whatever_the_header_case() {
        let bytes = b"content-length: 13\r\nContent-Type: x\r\n\r\n{\"a\":[1,2,3]}Content-Length: 2\r\n\r\n{}";
        let mut input = BufReader::new(&bytes[..]);
        assert_eq!(
            read_message(&mut input).await,
            Some(json!({"a": [1, 2, 3]}))
        );
        assert_eq!(read_message(&mut input).await, Some(json!({})));
        assert_eq!(read_message(&mut input).await, None);
    }
}
