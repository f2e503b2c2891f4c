//! JSON-RPC 2.0 over an agent's stdin and stdout: requests with their answers matched by id,
//! notifications both ways, and the agent's own requests handed to a handler with the means to
//! answer. Written here rather than built from the ACP SDK's client side (kept out of the
//! binary for size); the messages are read field by field in `wire/`, checked against what
//! the SDK's schema types write in its tests.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// An error answer, or a request that got none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// The connection ended before the answer came.
    fn closed() -> Self {
        Self::new(-32099, "the agent's connection closed")
    }
}

/// A message from the agent, as read off the line.
#[derive(Deserialize)]
struct Incoming {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Value,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
}

/// What the agent sends, in the order it sent it: a request (with its id), a notification, or
/// the answer to one of Tandem's requests (delivered through `reply` when its turn comes, so
/// that the updates sent before it are read first).
pub enum Call {
    Answer {
        reply: oneshot::Sender<Result<Value, RpcError>>,
        answer: Result<Value, RpcError>,
    },
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>>;

/// One connection to an agent.
pub struct Rpc {
    out: mpsc::UnboundedSender<String>,
    next: AtomicU64,
    pending: Arc<Pending>,
    /// Fires when the agent's output has ended.
    pub ended: CancellationToken,
}

impl Rpc {
    /// Starts reading `stdout` (each call handed to `calls`, in order) and writing `stdin`.
    pub fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
        calls: mpsc::UnboundedSender<Call>,
    ) -> Self {
        let (out, lines) = mpsc::unbounded_channel::<String>();
        tokio::spawn(write(stdin, lines));
        let pending: Arc<Pending> = Arc::default();
        let ended = CancellationToken::new();
        tokio::spawn(read(stdout, calls, pending.clone(), ended.clone()));
        Self {
            out,
            next: AtomicU64::new(1),
            pending,
            ended,
        }
    }

    /// Sends a request; its answer.
    pub async fn request(&self, method: &str, params: impl Serialize) -> Result<Value, RpcError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (reply, answer) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, reply);
        let line =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if self.ended.is_cancelled() || self.out.send(line.to_string()).is_err() {
            return Err(RpcError::closed());
        }
        answer.await.unwrap_or_else(|_| Err(RpcError::closed()))
    }

    pub fn notify(&self, method: &str, params: impl Serialize) {
        let line = serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = self.out.send(line.to_string());
    }

    /// A sender of answers that outlives a borrow of the connection.
    pub fn responder(&self) -> Responder {
        Responder(self.out.clone())
    }
}

/// Answers requests of the agent from any task.
#[derive(Clone)]
pub struct Responder(mpsc::UnboundedSender<String>);

impl Responder {
    pub fn respond(&self, id: Value, answer: Result<Value, RpcError>) {
        let line = match answer {
            Ok(result) => serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => serde_json::json!({"jsonrpc": "2.0", "id": id, "error": error}),
        };
        let _ = self.0.send(line.to_string());
    }
}

async fn write(mut stdin: ChildStdin, mut lines: mpsc::UnboundedReceiver<String>) {
    while let Some(line) = lines.recv().await {
        let mut batch = line;
        batch.push('\n');
        while let Ok(more) = lines.try_recv() {
            batch.push_str(&more);
            batch.push('\n');
        }
        if stdin.write_all(batch.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
            return;
        }
    }
}

async fn read(
    stdout: ChildStdout,
    calls: mpsc::UnboundedSender<Call>,
    pending: Arc<Pending>,
    ended: CancellationToken,
) {
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(message) = serde_json::from_str::<Incoming>(&line) else {
            tracing::warn!(%line, "an external agent wrote a line that is not JSON-RPC");
            continue;
        };
        match (message.method, message.id) {
            (Some(method), Some(id)) => {
                let _ = calls.send(Call::Request {
                    id,
                    method,
                    params: message.params,
                });
            }
            (Some(method), None) => {
                let _ = calls.send(Call::Notification {
                    method,
                    params: message.params,
                });
            }
            (None, Some(id)) => {
                let waiting = id.as_u64().and_then(|id| {
                    pending
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&id)
                });
                if let Some(reply) = waiting {
                    let answer = match message.error {
                        Some(error) => Err(error),
                        None => Ok(message.result.unwrap_or(Value::Null)),
                    };
                    let _ = calls.send(Call::Answer { reply, answer });
                }
            }
            (None, None) => {}
        }
    }
    ended.cancel();
    pending.lock().unwrap_or_else(|p| p.into_inner()).clear();
}
