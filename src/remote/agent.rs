//! One external agent's process and the ACP connection to it: started and initialised
//! (advertising files and terminals), its session opened, loaded or resumed, prompted with a
//! bound on its silence, cancelled (then killed if it does not stop within a second), ended.
//! Every failure is said in words that name the agent and quote its last stderr lines.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::events::RemoteEvent;
use super::host::RemoteHost;
use super::process::{self, Process, Tail};
use super::rpc::{Rpc, RpcError};
use super::slot::TurnSlot;
use super::wire::{Capabilities, McpCapabilities};
use crate::config::AcpAgentConfig;

/// How long a cancelled agent has to end its turn before its process is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(1);

/// How an agent's turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteStop {
    EndTurn,
    MaxTokens,
    MaxTurnRequests,
    Refusal,
    Cancelled,
}

/// The session an agent opened, and what the model is told about it.
pub struct Opened {
    pub id: String,
    /// Set when an earlier session could not be continued.
    pub note: Option<String>,
}

pub struct RemoteAgent {
    name: String,
    spec: AcpAgentConfig,
    rpc: Rpc,
    process: Mutex<Process>,
    tail: Arc<Tail>,
    slot: Arc<TurnSlot>,
    can_load: bool,
    can_resume: bool,
    mcp: McpCapabilities,
    /// Fires when the connection has ended (the agent exited or closed its output).
    ended: CancellationToken,
    last_used: Mutex<Instant>,
}

impl RemoteAgent {
    /// Starts `spec`'s agent in `cwd` and initialises it.
    pub async fn start(
        name: &str,
        spec: &AcpAgentConfig,
        cwd: &Path,
        standing: &crate::config::Standing,
        confined: Option<&crate::sandbox::Policy>,
    ) -> Result<Self, String> {
        let tail = Arc::new(Tail::default());
        let say = |what: &str| failure(name, spec, what, &tail);
        let (process, stdin, stdout) =
            process::spawn(name, spec, (cwd, standing), confined, tail.clone())
                .map_err(|e| say(&e))?;
        let slot = Arc::new(TurnSlot::default());
        let (calls, incoming) = mpsc::unbounded_channel();
        let rpc = Rpc::start(stdin, stdout, calls);
        tokio::spawn(super::handlers::serve(
            slot.clone(),
            incoming,
            rpc.responder(),
        ));
        let ended = rpc.ended.clone();
        let mut agent = Self {
            name: name.to_owned(),
            spec: spec.clone(),
            rpc,
            process: Mutex::new(process),
            tail,
            slot,
            can_load: false,
            can_resume: false,
            mcp: Default::default(),
            ended,
            last_used: Mutex::new(Instant::now()),
        };
        agent.initialize().await?;
        Ok(agent)
    }

    async fn initialize(&mut self) -> Result<(), String> {
        let request = json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true},
                                   "terminal": true, "elicitation": {"form": {}}},
            "clientInfo": {"name": "tandem", "version": env!("CARGO_PKG_VERSION")}
        });
        let sent = self.rpc.request("initialize", request);
        let init = self.bounded("did not answer `initialize`", sent).await?;
        let caps = Capabilities::read(&init);
        self.can_load = caps.load_session;
        self.can_resume = caps.resume;
        self.mcp = caps.mcp;
        Ok(())
    }

    /// Waits (at most the startup timeout) for a request's answer, or says why not.
    async fn bounded<T>(
        &self,
        silent: &str,
        sent: impl Future<Output = Result<T, RpcError>>,
    ) -> Result<T, String> {
        tokio::select! {
            answer = tokio::time::timeout(self.spec.startup_timeout(), sent) => match answer {
                Ok(Ok(answer)) => Ok(answer),
                Ok(Err(error)) => Err(self.failed_request(&error).await),
                Err(_) => {
                    self.kill();
                    Err(self.failure(&format!(
                        "{silent} within {} s, and was stopped",
                        self.spec.startup_timeout().as_secs()
                    )))
                }
            },
            _ = self.ended.cancelled() => Err(self.exited().await),
        }
    }

    /// Why a request failed: the agent went away (its connection ends soon after), or it
    /// answered with an error.
    async fn failed_request(&self, error: &RpcError) -> String {
        let gone = tokio::time::timeout(Duration::from_millis(500), self.ended.cancelled());
        if gone.await.is_ok() {
            self.exited().await
        } else {
            self.refusal(error)
        }
    }

    /// Opens a session in `cwd` with the caller's MCP servers: `previous` continued when the
    /// agent can load or resume it, else a new one (with a note saying so).
    pub async fn open_session(
        &self,
        cwd: &Path,
        servers: &[crate::mcp::McpServerSpec],
        previous: Option<&str>,
    ) -> Result<Opened, String> {
        let servers = super::mcp::servers(servers, self.mcp);
        let continued = match previous {
            Some(_) if self.can_load => Some(("session/load", "did not load its session")),
            Some(_) if self.can_resume => Some(("session/resume", "did not resume its session")),
            _ => None,
        };
        if let (Some(id), Some((method, silent))) = (previous, continued) {
            let request = json!({"sessionId": id, "cwd": cwd, "mcpServers": servers});
            self.bounded(silent, self.rpc.request(method, request))
                .await?;
            return Ok(Opened {
                id: id.to_owned(),
                note: None,
            });
        }
        let request = json!({"cwd": cwd, "mcpServers": servers});
        let sent = self.rpc.request("session/new", request);
        let opened = self.bounded("did not open a session", sent).await?;
        let Some(id) = super::wire::text(&opened, "sessionId") else {
            return Err(self.failure("answered `session/new` without a session id"));
        };
        Ok(Opened {
            id,
            note: previous.map(|_| {
                format!(
                    "(The agent `{}` can neither load nor resume its earlier session, so it \
                     started a new one and does not remember that task.)",
                    self.name
                )
            }),
        })
    }

    /// Runs one turn of `session` with `text`; its updates go to `events`, its requests to
    /// `host`. A cancel asks the agent to stop and kills it if it has not within a second.
    pub async fn prompt(
        &self,
        session: &str,
        text: String,
        host: Arc<dyn RemoteHost>,
        events: mpsc::UnboundedSender<RemoteEvent>,
        cancel: &CancellationToken,
    ) -> Result<RemoteStop, String> {
        self.touch();
        self.slot.begin(host, events);
        let stop = self.run_prompt(session, text, cancel).await;
        self.slot.end();
        self.touch();
        stop
    }

    async fn run_prompt(
        &self,
        session: &str,
        text: String,
        cancel: &CancellationToken,
    ) -> Result<RemoteStop, String> {
        let request = json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]});
        let sent = self.rpc.request("session/prompt", request);
        tokio::pin!(sent);
        let silence = self.spec.silence_timeout();
        loop {
            tokio::select! {
                answer = &mut sent => return match answer {
                    Ok(answer) => Ok(stop(answer["stopReason"].as_str().unwrap_or_default())),
                    Err(error) => Err(self.failed_request(&error).await),
                },
                _ = self.slot.heard.notified() => {}
                _ = tokio::time::sleep(silence) => {
                    self.kill();
                    return Err(self.failure(&format!(
                        "said nothing for {} s in the middle of its turn, and was stopped",
                        silence.as_secs()
                    )));
                }
                _ = cancel.cancelled() => {
                    self.rpc
                        .notify("session/cancel", json!({"sessionId": session}));
                    if tokio::time::timeout(CANCEL_GRACE, &mut sent).await.is_err() {
                        tracing::warn!(agent = %self.name, "did not stop within a second of a cancel; killed");
                        self.kill();
                    }
                    return Ok(RemoteStop::Cancelled);
                }
                _ = self.ended.cancelled() => return Err(self.exited().await),
            }
        }
    }

    fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// Whether it has sat unused longer than its idle timeout.
    pub fn idle_too_long(&self) -> bool {
        self.last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
            > self.spec.idle_timeout()
    }

    /// Whether its process and connection are still there.
    pub fn alive(&self) -> bool {
        !self.ended.is_cancelled()
    }

    /// Ends the agent: its connection, and its whole process group.
    pub fn kill(&self) {
        self.process
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .kill();
    }

    fn failure(&self, what: &str) -> String {
        failure(&self.name, &self.spec, what, &self.tail)
    }

    /// The agent answered a request with an error.
    fn refusal(&self, error: &RpcError) -> String {
        let what = if error.code == -32000 {
            "needs you to sign in first: sign in with the agent itself (its own login command), \
             then try again"
                .to_owned()
        } else {
            format!("answered with an error: {}", error.message)
        };
        self.failure(&what)
    }

    /// The agent's process went away (its exit status, when it comes within half a second).
    async fn exited(&self) -> String {
        let mut status = None;
        for _ in 0..25 {
            status = self
                .process
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .child
                .try_wait()
                .ok()
                .flatten();
            if status.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let how = match status {
            Some(status) => format!("exited ({status})"),
            None => "closed its connection".to_owned(),
        };
        self.failure(&format!("{how} before it finished"))
    }
}

impl Drop for RemoteAgent {
    fn drop(&mut self) {
        self.kill();
    }
}

/// "The agent `name` (`program`) {what}.", with its last stderr lines.
fn failure(name: &str, spec: &AcpAgentConfig, what: &str, tail: &Tail) -> String {
    let stop = if what.ends_with(['.', '?', '!']) {
        ""
    } else {
        "."
    };
    format!(
        "The agent `{name}` (`{}`) {what}{stop}{}",
        spec.command.join(" "),
        tail.quoted()
    )
}

fn stop(reason: &str) -> RemoteStop {
    match reason {
        "max_tokens" => RemoteStop::MaxTokens,
        "max_turn_requests" => RemoteStop::MaxTurnRequests,
        "refusal" => RemoteStop::Refusal,
        "cancelled" => RemoteStop::Cancelled,
        _ => RemoteStop::EndTurn,
    }
}
