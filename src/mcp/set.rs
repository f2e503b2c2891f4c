//! A session's MCP servers: connected in the background from the moment the session opens (so
//! `session/new` never waits), awaited (bounded) by the first prompt, their failures told once,
//! their tools offered, and their process groups ended when the session closes or Tandem exits.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use futures::FutureExt;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::connect::{self, Connection, Failure, State, StderrTail};
use super::prompts::{self, PromptCommand};
use super::resources::{self, ResourceTool};
use super::spec::McpServerSpec;
use super::tool::{self, McpTool};
use crate::tool::Tool;

/// How long after the editor's answer the servers start (the first prompt does not wait).
const RELEASE_DELAY: std::time::Duration = std::time::Duration::from_millis(5);

struct Server {
    spec: McpServerSpec,
    state: watch::Receiver<State>,
    group: Arc<AtomicI32>,
    reported: AtomicBool,
    /// Its login link was shown to the person.
    link_shown: AtomicBool,
    /// Its tools were offered (a server ready later makes the tools be read again).
    listed: AtomicBool,
    /// The person declined its login.
    declined: CancellationToken,
}

/// Every MCP server of one session.
#[derive(Default)]
pub struct McpSet {
    servers: Vec<Server>,
    /// Connecting begins once this opens: after the editor has its answer (`release`), or at
    /// the first prompt, whichever comes first.
    gate: Arc<Gate>,
}

/// A one-way door the connecting tasks wait behind.
#[derive(Default)]
struct Gate {
    open: AtomicBool,
    opened: tokio::sync::Notify,
}

impl Gate {
    fn open(&self) {
        self.open.store(true, Ordering::Release);
        self.opened.notify_waiters();
    }

    async fn wait(&self) {
        while !self.open.load(Ordering::Acquire) {
            let opened = self.opened.notified();
            if self.open.load(Ordering::Acquire) {
                return;
            }
            opened.await;
        }
    }
}

impl McpSet {
    /// Starts connecting every server of `specs` (in `cwd`), each on its own task.
    pub fn start(specs: Vec<McpServerSpec>, cwd: &Path) -> Arc<Self> {
        let gate = Arc::new(Gate::default());
        let servers = specs
            .into_iter()
            .map(|spec| {
                let (tx, state) = watch::channel(State::Connecting);
                let group = Arc::new(AtomicI32::new(0));
                let declined = CancellationToken::new();
                let task = (spec.clone(), group.clone(), cwd.to_owned());
                let (task_gate, task_declined) = (gate.clone(), declined.clone());
                tokio::spawn(async move {
                    task_gate.wait().await;
                    let (spec, group, cwd) = task;
                    let state = run(&spec, &cwd, &group, &tx, &task_declined).await;
                    if let State::Failed(reason) = &state {
                        tracing::warn!(server = %spec.name, %reason, "MCP server failed");
                    }
                    let _ = tx.send(state);
                });
                Server {
                    spec,
                    state,
                    group,
                    reported: AtomicBool::new(false),
                    link_shown: AtomicBool::new(false),
                    listed: AtomicBool::new(false),
                    declined,
                }
            })
            .collect();
        Arc::new(Self { servers, gate })
    }

    /// Releases the servers (if not yet) and waits until each is connected or has failed.
    pub async fn ready(&self) {
        self.release();
        self.settled().await;
    }

    /// Lets the servers start connecting (the editor has had its answer).
    pub fn release(&self) {
        self.gate.open();
    }

    /// Releases the servers a moment from now: the answer just handed to the SDK is written
    /// out before any server process is forked (forks hold up the runtime's threads).
    pub fn release_soon(&self) {
        let gate = self.gate.clone();
        tokio::spawn(async move {
            tokio::time::sleep(RELEASE_DELAY).await;
            gate.open();
        });
    }

    /// What each server was started from.
    pub fn specs(&self) -> Vec<McpServerSpec> {
        self.servers.iter().map(|s| s.spec.clone()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Waits until every server is connected or has failed (each is bounded by its timeout,
    /// counted once released).
    pub async fn settled(&self) {
        for server in &self.servers {
            let mut state = server.state.clone();
            let _ = state.wait_for(|s| !matches!(s, State::Connecting)).await;
        }
    }

    /// `(server, link)` for each server waiting for a login whose link was not shown before.
    pub fn logins_to_show(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .filter_map(|server| match &*server.state.borrow() {
                State::Login(link) if !server.link_shown.swap(true, Ordering::Relaxed) => {
                    Some((server.spec.name.clone(), link.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The person declined to log in to `server`: it fails, and is reported so.
    pub fn decline_login(&self, server: &str) {
        for s in self.servers.iter().filter(|s| s.spec.name == server) {
            s.declined.cancel();
        }
    }

    /// `(server, why)` for each failed server not reported before.
    pub fn new_failures(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .filter_map(|server| match &*server.state.borrow() {
                State::Failed(reason) if !server.reported.swap(true, Ordering::Relaxed) => {
                    Some((server.spec.name.clone(), reason.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The tools of every connected server, named `<server>_<tool>`, never one of `reserved`
    /// (the built-in tools' names: a server cannot stand in for `apply_patch`).
    pub fn tools<'a>(&self, reserved: impl IntoIterator<Item = &'a str>) -> Vec<Arc<dyn Tool>> {
        let mut taken: Vec<String> = reserved.into_iter().map(str::to_owned).collect();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for server in &self.servers {
            let State::Ready(connection) = &*server.state.borrow() else {
                continue;
            };
            server.listed.store(true, Ordering::Relaxed);
            let listed_tools = connection.tools.lock().unwrap_or_else(|p| p.into_inner());
            for listed in listed_tools.iter() {
                let naming = tool::unique_name(&server.spec.name, &listed.name, &mut taken);
                tools.push(Arc::new(McpTool::new(
                    &server.spec.name,
                    naming,
                    listed,
                    connection.clone(),
                )));
            }
            if !connection.resources.is_empty() {
                let name = tool::unique_name(&server.spec.name, "read_resource", &mut taken).name;
                let reader = ResourceTool::new(name, &server.spec.name, connection.clone());
                tools.push(Arc::new(reader));
            }
        }
        tools
    }

    /// Each connected server's name with the permission keys of its tools (`<server>_<tool>`
    /// and their other spellings), for judging what handing the server over would allow.
    pub fn tool_keys(&self) -> Vec<(String, Vec<String>)> {
        let mut taken = Vec::new();
        self.servers
            .iter()
            .map(|server| {
                let keys = match &*server.state.borrow() {
                    State::Ready(connection) => connection
                        .tools
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .iter()
                        .flat_map(|t| {
                            tool::unique_name(&server.spec.name, &t.name, &mut taken).keys
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                (server.spec.name.clone(), keys)
            })
            .collect()
    }

    /// Every connected server's prompts, as slash commands.
    pub fn prompts(&self) -> Vec<PromptCommand> {
        self.connected()
            .iter()
            .flat_map(|(name, connection)| prompts::commands(name, connection))
            .collect()
    }

    /// The text of the prompt command `server:prompt` with `args`; None if there is no such
    /// prompt.
    pub async fn expand_prompt(&self, command: &str, args: &str) -> Option<Result<String, String>> {
        let (server, prompt) = command.split_once(':')?;
        let (_, connection) = self
            .connected()
            .into_iter()
            .find(|(name, _)| name == server)?;
        prompts::expand(&connection, prompt, args).await
    }

    /// The text of resource `uri`, from the server that lists it; None if none does.
    pub async fn read_resource(&self, uri: &str) -> Option<Result<String, String>> {
        let (_, connection) = self
            .connected()
            .into_iter()
            .find(|(_, c)| c.resources.iter().any(|r| r.uri == uri))?;
        Some(resources::read(&connection, uri).await)
    }

    fn connected(&self) -> Vec<(String, Arc<Connection>)> {
        self.servers
            .iter()
            .filter_map(|server| match &*server.state.borrow() {
                State::Ready(connection) => Some((server.spec.name.clone(), connection.clone())),
                _ => None,
            })
            .collect()
    }

    /// Reads again the tools of every server that said its list changed; true if any did, or
    /// if a server is ready whose tools were not offered yet (it connected after a login).
    pub async fn refresh(&self) -> bool {
        let mut changed = self.servers.iter().any(|server| {
            matches!(&*server.state.borrow(), State::Ready(_))
                && !server.listed.load(Ordering::Relaxed)
        });
        for server in &self.servers {
            let connection = match &*server.state.borrow() {
                State::Ready(connection) => connection.clone(),
                _ => continue,
            };
            changed |= connection.refresh().await;
        }
        changed
    }

    /// Ends every server's process group.
    pub fn shutdown(&self) {
        for server in &self.servers {
            connect::kill_group(&server.group);
        }
    }
}

impl Drop for McpSet {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Connects one server (logging in where it asks); the state it ends in.
async fn run(
    spec: &McpServerSpec,
    cwd: &Path,
    group: &AtomicI32,
    tx: &watch::Sender<State>,
    declined: &CancellationToken,
) -> State {
    let stderr = StderrTail::default();
    let attempt = connect::connect(spec, cwd, &stderr, group);
    // A panic inside the SDK is a failed server, not a session that waits forever.
    let attempt = std::panic::AssertUnwindSafe(attempt).catch_unwind();
    match tokio::time::timeout(spec.timeout, attempt).await {
        Ok(Ok(Ok(connection))) => State::Ready(Arc::new(connection)),
        Ok(Ok(Err(Failure::Login(challenge)))) => {
            super::login::log_in(spec, challenge, tx, declined).await
        }
        Ok(Ok(Err(Failure::Other(reason)))) => failed(reason, &stderr, group).await,
        Ok(Err(_)) => {
            let reason = "connecting it failed inside the MCP SDK".into();
            failed(reason, &stderr, group).await
        }
        Err(_) => {
            let reason = format!("it did not connect within {} s", spec.timeout.as_secs_f64());
            failed(reason, &stderr, group).await
        }
    }
}

/// A failed server: its reason with the last lines of its stderr, and its processes ended.
async fn failed(reason: String, stderr: &StderrTail, group: &AtomicI32) -> State {
    connect::kill_group(group);
    stderr
        .read_to_end(std::time::Duration::from_millis(500))
        .await;
    let tail = stderr.text();
    State::Failed(if tail.is_empty() {
        reason
    } else {
        format!("{reason}\nLast lines of its stderr:\n{tail}")
    })
}
