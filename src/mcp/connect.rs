//! Connecting one MCP server: a stdio server runs in a process group of its own (so the whole
//! group can be ended), its stderr is kept (the last lines explain a failure) and never reaches
//! our stdout; `initialize` and the tool list must come within the server's timeout.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::notices::{Notices, Watched};
use super::spec::{McpServerSpec, McpTransport};

/// How many of a server's last stderr lines are kept.
const STDERR_LINES: usize = 20;

/// A connected server and the tools it offers (read again when it says they changed).
pub(super) struct Connection {
    pub service: RunningService<RoleClient, Notices>,
    pub notices: Notices,
    pub tools: Mutex<Vec<rmcp::model::Tool>>,
    /// Its prompts and resources, as listed when it connected (none if it offers none).
    pub prompts: Vec<rmcp::model::Prompt>,
    pub resources: Vec<rmcp::model::Resource>,
}

/// Where a server stands.
#[derive(Clone)]
pub(super) enum State {
    Connecting,
    /// It asked for a login; the person opens this link to log in.
    Login(String),
    Ready(Arc<Connection>),
    Failed(String),
}

/// Why a server did not connect.
#[derive(Debug)]
pub(super) enum Failure {
    /// It answered 401 with this `WWW-Authenticate` challenge: it wants a login.
    Login(String),
    Other(String),
}

impl From<String> for Failure {
    fn from(reason: String) -> Self {
        Failure::Other(reason)
    }
}

impl Connection {
    async fn open<T, E, A>(transport: T) -> Result<Self, Failure>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let notices = Notices::default();
        let watched = Watched {
            inner: transport.into_transport(),
            notices: notices.clone(),
        };
        let service = match notices.clone().serve(watched).await {
            Ok(service) => service,
            Err(error) => {
                return Err(match error.auth_challenge() {
                    Some(challenge) => Failure::Login(challenge.to_owned()),
                    None => Failure::Other(error.to_string()),
                });
            }
        };
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))?;
        let offers = service.peer_info().map(|info| info.capabilities.clone());
        let prompts = match offers.as_ref().and_then(|c| c.prompts.as_ref()) {
            Some(_) => service.list_all_prompts().await.unwrap_or_default(),
            None => Vec::new(),
        };
        let resources = match offers.as_ref().and_then(|c| c.resources.as_ref()) {
            Some(_) => service.list_all_resources().await.unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(Self {
            service,
            notices,
            tools: Mutex::new(tools),
            prompts,
            resources,
        })
    }

    /// Reads the server's tools again if it said they changed; true if it did.
    pub async fn refresh(&self) -> bool {
        if !self.notices.take_tools_changed() {
            return false;
        }
        match self.service.list_all_tools().await {
            Ok(tools) => *self.tools.lock().unwrap_or_else(|p| p.into_inner()) = tools,
            Err(error) => tracing::warn!(%error, "an MCP server's new tool list is unreadable"),
        }
        true
    }
}

/// The last lines a server wrote to stderr, and whether it has closed it.
#[derive(Clone, Default)]
pub(super) struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    closed: Arc<(AtomicBool, tokio::sync::Notify)>,
}

impl StderrTail {
    /// Waits (at most `limit`) until the server's stderr is read to its end: a server that
    /// failed has usually said why just before.
    pub async fn read_to_end(&self, limit: std::time::Duration) {
        let (done, notify) = &*self.closed;
        let wait = async {
            while !done.load(Ordering::Acquire) {
                let notified = notify.notified();
                if done.load(Ordering::Acquire) {
                    break;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
    }

    fn close(&self) {
        let (done, notify) = &*self.closed;
        done.store(true, Ordering::Release);
        notify.notify_waiters();
    }

    fn push(&self, line: String) {
        let mut lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub fn text(&self) -> String {
        let lines = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// Connects `spec` (its process group goes into `group` as soon as it exists).
pub(super) async fn connect(
    spec: &McpServerSpec,
    cwd: &Path,
    stderr: &StderrTail,
    group: &AtomicI32,
) -> Result<Connection, Failure> {
    if !matches!(spec.transport, McpTransport::Stdio { .. }) {
        // No process, no stderr to wait for.
        stderr.close();
    }
    let (command, args, env) = match &spec.transport {
        McpTransport::Stdio { command, args, env } => (command, args, env),
        McpTransport::Http { url, headers } => {
            let kept = match has_authorization(headers) {
                true => None,
                false => super::oauth::kept(&spec.name, url).await,
            };
            return connect_http(url, headers, kept).await;
        }
        McpTransport::Sse { url, .. } => {
            return Err(Failure::Other(format!(
                "it uses the old HTTP+SSE transport ({url}), which the MCP SDK no longer speaks; \
                 point it at the server's Streamable HTTP endpoint instead"
            )));
        }
    };
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .process_group(0)
        .kill_on_drop(true);
    // On Linux the server is killed if Tandem dies without ending it (SIGKILL included).
    crate::process::groups::die_with_parent(&mut cmd);
    // Kept until the server has started: the child takes the ruleset on before it execs.
    let sandbox = sandbox_for(spec, cwd)?;
    if let Some(prepared) = &sandbox {
        prepared.apply(&mut cmd);
    }
    let (process, errors) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start `{command}`: {e}"))?;
    if let Some(pid) = process.id() {
        group.store(pid as i32, Ordering::Relaxed);
        crate::process::groups::register(pid as i32);
    }
    if let Some(errors) = errors {
        let tail = stderr.clone();
        let name = spec.name.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(errors).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %name, "{line}");
                tail.push(line);
            }
            tail.close();
        });
    } else {
        stderr.close();
    }
    Connection::open(process).await
}

/// Whether the entry sends an `Authorization` header of its own (then no login is tried).
pub(super) fn has_authorization(headers: &[(String, String)]) -> bool {
    headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
}

/// Connects a Streamable HTTP server at `url`, sending `headers` with every request, and the
/// tokens of a login when `login` is given.
pub(super) async fn connect_http(
    url: &str,
    headers: &[(String, String)],
    login: Option<super::oauth::Authorized>,
) -> Result<Connection, Failure> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    let mut custom = std::collections::HashMap::new();
    for (name, value) in headers {
        // The SDK sends the `Authorization` header itself.
        if name.eq_ignore_ascii_case("authorization") {
            let token = value.strip_prefix("Bearer ").unwrap_or(value);
            config = config.auth_header(token.to_owned());
            continue;
        }
        let name = reqwest::header::HeaderName::try_from(name.as_str())
            .map_err(|e| format!("bad header name `{name}`: {e}"))?;
        let value = reqwest::header::HeaderValue::try_from(value.as_str())
            .map_err(|e| format!("bad value for header `{name}`: {e}"))?;
        custom.insert(name, value);
    }
    let config = config.custom_headers(custom);
    match login {
        Some(client) => {
            Connection::open(StreamableHttpClientTransport::with_client(client, config)).await
        }
        None => {
            // Tandem's own client: the same certificates and TLS as model requests.
            let client = crate::provider::http_client().clone();
            Connection::open(StreamableHttpClientTransport::with_client(client, config)).await
        }
    }
}

/// The ruleset a server whose entry asks for the sandbox starts under.
fn sandbox_for(
    spec: &McpServerSpec,
    cwd: &std::path::Path,
) -> Result<Option<crate::sandbox::Prepared>, String> {
    let Some(config) = &spec.sandbox else {
        return Ok(None);
    };
    let policy = crate::sandbox::Policy::resolve(Some(config), cwd);
    crate::sandbox::prepare(&policy).map_err(|why| format!("its entry asks for a sandbox: {why}"))
}

/// Ends a server's whole process group.
pub(super) fn kill_group(group: &AtomicI32) {
    let pgid = group.swap(0, Ordering::Relaxed);
    if pgid > 0 {
        crate::process::groups::kill_group(pgid);
    }
}
