//! One external agent's process and the ACP connection to it: started and initialised
//! (advertising files and terminals), its session opened, loaded or resumed, prompted with a
//! bound on its silence, cancelled (then killed if it does not stop within a second), ended.
//! Every failure is said in words that name the agent and quote its last stderr lines.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ContentBlock, CurrentModeUpdate,
    ElicitationCapabilities, ElicitationFormCapabilities, FileSystemCapabilities, Implementation,
    InitializeRequest, LoadSessionRequest, McpCapabilities, NewSessionRequest, PromptRequest,
    ResumeSessionRequest, SessionConfigOptionValue, SessionUpdate, SetSessionConfigOptionRequest,
    SetSessionModeRequest, StopReason,
};
use agent_client_protocol::{Error as RpcError, ErrorCode};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connection::Connection;
use super::events::RemoteEvent;
use super::host::RemoteHost;
use super::offer::{OfferCell, OptionValue};
use super::process::{self, Process, Tail};
use super::slot::TurnSlot;
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

impl Opened {
    /// The earlier session `id`, continued.
    fn again(id: &str) -> Self {
        Self {
            id: id.to_owned(),
            note: None,
        }
    }
}

pub struct RemoteAgent {
    name: String,
    spec: AcpAgentConfig,
    rpc: Connection,
    process: Mutex<Process>,
    tail: Arc<Tail>,
    slot: Arc<TurnSlot>,
    can_load: bool,
    can_resume: bool,
    mcp: McpCapabilities,
    /// Fires when the connection has ended (the agent exited or closed its output).
    ended: CancellationToken,
    last_used: Mutex<Instant>,
    /// The agent's own mode set on each session it opens.
    mode: Option<String>,
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
        let rpc = Connection::start(stdin, stdout, slot.clone())
            .await
            .map_err(|e| say(&e))?;
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
            mcp: McpCapabilities::new(),
            ended,
            last_used: Mutex::new(Instant::now()),
            mode: spec.mode_for(confined.is_some()),
        };
        agent.initialize().await?;
        Ok(agent)
    }

    async fn initialize(&mut self) -> Result<(), String> {
        let files = self.spec.offers_files();
        let capabilities = ClientCapabilities::new()
            .fs(FileSystemCapabilities::new()
                .read_text_file(files)
                .write_text_file(files))
            .terminal(true)
            .elicitation(ElicitationCapabilities::new().form(ElicitationFormCapabilities::new()));
        let request = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(capabilities)
            .client_info(Implementation::new("tandem", env!("CARGO_PKG_VERSION")));
        let sent = self.rpc.cx.send_request(request).block_task();
        let init = self.bounded("did not answer `initialize`", sent).await?;
        let caps = init.agent_capabilities;
        self.can_load = caps.load_session;
        self.can_resume = caps.session_capabilities.resume.is_some();
        self.mcp = caps.mcp_capabilities;
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
        let opened = self.open_or_load(cwd, servers, previous).await?;
        if let Some(mode) = &self.mode {
            let request = SetSessionModeRequest::new(opened.id.clone(), mode.clone());
            let sent = self.rpc.cx.send_request(request).block_task();
            self.bounded(&format!("did not take the mode `{mode}`"), sent)
                .await?;
            self.slot
                .offer
                .take(&SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(
                    mode.clone(),
                )));
        }
        Ok(opened)
    }

    /// What the agent offers the person now, and where its changes are told.
    pub fn offer(&self) -> &OfferCell {
        &self.slot.offer
    }

    /// Sets the agent's option `id` of `session` to `value` (its modes through
    /// `session/set_mode`, the rest through `session/set_config_option`).
    pub async fn choose(&self, session: &str, id: &str, value: OptionValue) -> Result<(), String> {
        let offered = self.slot.offer.get();
        let Some(option) = offered.option(id) else {
            return Err(format!("the agent `{}` has no option `{id}`", self.name));
        };
        let silent = format!("did not take `{id}`");
        match (&value, option.through_modes) {
            (OptionValue::Id(mode), true) => {
                let request = SetSessionModeRequest::new(session.to_owned(), mode.clone());
                let sent = self.rpc.cx.send_request(request).block_task();
                self.bounded(&silent, sent).await?;
                self.slot.offer.chosen(id, &value);
            }
            _ => {
                let chosen = match &value {
                    OptionValue::Id(v) => SessionConfigOptionValue::value_id(v.clone()),
                    OptionValue::Toggle(on) => SessionConfigOptionValue::boolean(*on),
                };
                let request =
                    SetSessionConfigOptionRequest::new(session.to_owned(), id.to_owned(), chosen);
                let sent = self.rpc.cx.send_request(request).block_task();
                let answer = self.bounded(&silent, sent).await?;
                self.slot.offer.take_options(answer.config_options);
            }
        }
        Ok(())
    }

    async fn open_or_load(
        &self,
        cwd: &Path,
        servers: &[crate::mcp::McpServerSpec],
        previous: Option<&str>,
    ) -> Result<Opened, String> {
        let servers = super::mcp::servers(servers, &self.mcp);
        let cx = &self.rpc.cx;
        if let Some(id) = previous {
            if self.can_load {
                let request = LoadSessionRequest::new(id.to_owned(), cwd).mcp_servers(servers);
                let sent = cx.send_request(request).block_task();
                let loaded = self.bounded("did not load its session", sent).await?;
                self.slot
                    .offer
                    .take_session(loaded.modes, loaded.config_options);
                return Ok(Opened::again(id));
            }
            if self.can_resume {
                let request = ResumeSessionRequest::new(id.to_owned(), cwd).mcp_servers(servers);
                let sent = cx.send_request(request).block_task();
                let resumed = self.bounded("did not resume its session", sent).await?;
                self.slot
                    .offer
                    .take_session(resumed.modes, resumed.config_options);
                return Ok(Opened::again(id));
            }
        }
        let sent = cx
            .send_request(NewSessionRequest::new(cwd).mcp_servers(servers))
            .block_task();
        let opened = self.bounded("did not open a session", sent).await?;
        self.slot
            .offer
            .take_session(opened.modes, opened.config_options);
        Ok(Opened {
            id: opened.session_id.0.to_string(),
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
        let request = PromptRequest::new(session.to_owned(), vec![ContentBlock::from(text)]);
        let sent = self.rpc.cx.send_request(request).block_task();
        tokio::pin!(sent);
        let silence = self.spec.silence_timeout();
        loop {
            tokio::select! {
                answer = &mut sent => return match answer {
                    Ok(answer) => Ok(stop(answer.stop_reason)),
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
                    let cancel = CancelNotification::new(session.to_owned());
                    if let Err(error) = self.rpc.cx.send_notification(cancel) {
                        tracing::debug!(%error, "the cancel did not reach the agent");
                    }
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
        let what = if error.code == ErrorCode::AUTH_REQUIRED {
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

fn stop(reason: StopReason) -> RemoteStop {
    match reason {
        StopReason::MaxTokens => RemoteStop::MaxTokens,
        StopReason::MaxTurnRequests => RemoteStop::MaxTurnRequests,
        StopReason::Refusal => RemoteStop::Refusal,
        StopReason::Cancelled => RemoteStop::Cancelled,
        _ => RemoteStop::EndTurn,
    }
}
