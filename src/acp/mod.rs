//! The ACP edge: the only module that knows ACP types. It wires one handler per method,
//! opens the core lazily, and forwards the sessions' events to the editor in order.
//!
//! Split by direction: `calls/` (the methods the editor calls), `updates/` (what Tandem sends
//! unasked: `session/update`s and which session each reaches), `requests/` (what Tandem asks
//! of the editor: permission, questions, files and terminals); `transport` and `upstream/`
//! (the line transport and the SDK workarounds) and `error` beneath them.
//!
//! Floors, bottom up: upstream → error, transport, updates → requests → calls.

mod calls;
mod error;
mod requests;
mod transport;
mod updates;
mod upstream;

use std::sync::{Arc, OnceLock};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::ClientCapabilities;
use agent_client_protocol::{Agent, Client, Error};

use crate::bus::{Bus, Subscription};
use crate::id::SessionId;
use crate::paths;
use crate::session::SessionManager;
use crate::store::Store;

/// State shared by the handlers of one connection.
pub struct AcpState {
    bus: Arc<Bus>,
    manager: OnceLock<Arc<SessionManager>>,
    /// Held while the store is being opened, so one call opens it and the others wait.
    opening: std::sync::Mutex<()>,
    capabilities: OnceLock<ClientCapabilities>,
    /// Which events this connection forwards, and where.
    router: Arc<updates::route::Router>,
    forwarding: OnceLock<Subscription>,
    /// Where updates are handed to the stdout writer.
    outbox: Arc<upstream::Outbox>,
}

impl AcpState {
    /// The state, and the stdout writer's side of its outbox.
    fn new() -> (Arc<Self>, upstream::Tickets) {
        let (outbox, tickets) = upstream::outbox();
        let state = Arc::new(Self {
            bus: Bus::new(),
            manager: OnceLock::new(),
            opening: std::sync::Mutex::new(()),
            capabilities: OnceLock::new(),
            router: Arc::default(),
            forwarding: OnceLock::new(),
            outbox: Arc::new(outbox),
        });
        (state, tickets)
    }

    /// The session core, opened on first use so `initialize` costs nothing. A failure to
    /// open (a store another process holds too long, say) is reported and tried again on the
    /// next call, never kept.
    fn manager(&self) -> Result<Arc<SessionManager>, Error> {
        if let Some(manager) = self.manager.get() {
            return Ok(manager.clone());
        }
        let _opening = self.opening.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(manager) = self.manager.get() {
            return Ok(manager.clone());
        }
        let store = Store::open_in(&paths::data_dir())
            .map_err(|e| Error::new(-32603, format!("cannot open the session store: {e}")))?;
        let manager = SessionManager::new(Arc::new(store), self.bus.clone());
        Ok(self.manager.get_or_init(|| manager).clone())
    }

    fn client_capabilities(&self) -> ClientCapabilities {
        self.capabilities.get().cloned().unwrap_or_default()
    }

    /// Whether the client declared JetBrains Air's bundle.
    fn air(&self) -> bool {
        updates::air::declared(&self.client_capabilities())
    }

    /// The client port for a prompt's turn: the editor, as this connection knows it.
    fn port(&self, cx: &ConnectionTo<Client>) -> requests::client::AcpPort {
        requests::client::AcpPort::new(
            cx.clone(),
            self.client_capabilities(),
            self.router.clone(),
            self.outbox.clone(),
        )
    }

    /// Sends one update, in order with everything else sent on `cx`.
    fn send(
        &self,
        cx: &ConnectionTo<Client>,
        notification: &agent_client_protocol::v1::schema::SessionNotification,
    ) -> Result<(), Error> {
        self.outbox.send(cx, notification)
    }

    /// Starts forwarding `id`'s events (and its subagents') to the editor.
    fn show(&self, id: &SessionId, cx: &ConnectionTo<Client>) {
        self.forwarding.get_or_init(|| {
            let router = self.router.clone();
            let outbox = self.outbox.clone();
            let cx = cx.clone();
            let manager = self.manager.get().map(Arc::downgrade);
            let air = self.air();
            self.bus.subscribe(move |event| {
                let options = manager
                    .as_ref()
                    .and_then(|m| options_update(m, &router, event, air));
                for notification in router.route(event).into_iter().chain(options) {
                    // Fails only when the editor has gone; the turn notices on its own.
                    let _ = outbox.send(&cx, &notification);
                }
            })
        });
        self.router.show(id);
    }

    fn hide(&self, id: &SessionId) {
        self.router.hide(id);
    }
}

/// The whole option list again (`config_option_update`) when a session the editor shows
/// changed what can be chosen by itself: its external agent's offer, or its mode.
fn options_update(
    manager: &std::sync::Weak<SessionManager>,
    router: &updates::route::Router,
    event: &crate::bus::Event,
    air: bool,
) -> Option<agent_client_protocol::v1::schema::SessionNotification> {
    use crate::bus::Event;
    use agent_client_protocol::v1::schema::{
        ConfigOptionUpdate, SessionNotification, SessionUpdate,
    };
    let (Event::OptionsChanged { session_id } | Event::ModeChanged { session_id, .. }) = event
    else {
        return None;
    };
    if !router.is_shown(session_id) {
        return None;
    }
    let view = manager.upgrade()?.view(session_id).ok()?;
    let options = calls::modes::config_options(&view, air);
    Some(SessionNotification::new(
        session_id.to_string(),
        SessionUpdate::ConfigOptionUpdate(ConfigOptionUpdate::new(options)),
    ))
}

/// Registers `$handler(state, request, responder, cx)` for its request type.
macro_rules! on_request {
    ($builder:expr, $state:expr, $handler:path) => {
        $builder.on_receive_request(
            {
                let state = $state.clone();
                async move |request, responder, cx| {
                    $handler(state.clone(), request, responder, cx).await
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
    };
}

/// Serves ACP on stdin/stdout until the editor closes stdin.
pub async fn serve() -> Result<(), Error> {
    serve_on(
        blocking::Unblock::new(std::io::stdin()),
        std::io::stdout(),
        true,
    )
    .await
}

/// Serves ACP on `input` and `output` until `input` ends; `signals` ends it on SIGTERM, SIGINT
/// and SIGHUP too (the process's own stdio). The fuzz target drives it in process.
pub async fn serve_on(
    input: impl futures::AsyncRead + Unpin + Send + 'static,
    output: impl std::io::Write + Send + 'static,
    signals: bool,
) -> Result<(), Error> {
    let (state, tickets) = AcpState::new();
    let builder = Agent.v1().name("tandem");
    let builder = on_request!(builder, state, calls::initialize::on_initialize);
    let builder = on_request!(builder, state, calls::auth::on_authenticate);
    let builder = on_request!(builder, state, calls::auth::on_logout);
    let builder = on_request!(builder, state, calls::session::on_new);
    let builder = on_request!(builder, state, calls::session::on_load);
    let builder = on_request!(builder, state, calls::session::on_resume);
    let builder = on_request!(builder, state, calls::session::on_list);
    let builder = on_request!(builder, state, calls::session::on_close);
    let builder = on_request!(builder, state, calls::fork::on_fork);
    let builder = on_request!(builder, state, calls::delete::on_delete);
    let builder = on_request!(builder, state, calls::status::on_status);
    let builder = on_request!(builder, state, calls::status::on_set_title);
    let builder = on_request!(builder, state, calls::prompt::on_prompt);
    let builder = on_request!(builder, state, calls::steering::on_steering);
    let builder = on_request!(builder, state, calls::rewind::on_rewind);
    let builder = on_request!(builder, state, calls::todo::on_todo_list);
    let builder = on_request!(builder, state, calls::children::on_children);
    let builder = on_request!(builder, state, calls::service::on_service);
    let builder = on_request!(builder, state, calls::modes::on_set_mode);
    let builder = on_request!(builder, state, calls::modes::on_set_config_option);
    let builder = builder.on_receive_notification(
        {
            let state = state.clone();
            async move |notification, cx| {
                calls::prompt::on_cancel(state.clone(), notification, cx).await
            }
        },
        agent_client_protocol::on_receive_notification!(),
    );
    let (lines, drained) = transport::over(input, output, tickets);
    if signals {
        tokio::spawn(end_on_signal(state.clone()));
    }
    let result = builder.connect_to(lines).await;
    drained.wait(std::time::Duration::from_secs(2));
    if let Some(manager) = state.manager.get()
        && let Err(error) = manager.end().await
    {
        tracing::error!(%error, "the last messages could not be stored");
    }
    result
}

/// On SIGTERM, SIGINT or SIGHUP: ends every MCP server Tandem started, stores what is queued,
/// and exits (signals in general, running turns included, are issue 16's to finish).
async fn end_on_signal(state: Arc<AcpState>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    let code = tokio::select! {
        _ = term.recv() => 143,
        _ = int.recv() => 130,
        _ = hup.recv() => 129,
    };
    // Every command and server dies now: the process exits without waiting for the tasks
    // that would otherwise end them (language servers get half a second to stop first).
    match state.manager.get() {
        Some(manager) => {
            if let Err(error) = manager.end_now().await {
                tracing::error!(%error, "the last messages could not be stored");
            }
        }
        None => crate::process::groups::kill_all(),
    }
    std::process::exit(code);
}

/// The `session/update` notification line an editor would receive for `event`, if any.
pub fn event_as_json_rpc(event: &crate::bus::Event) -> Option<String> {
    upstream::line(&updates::translate::event_update(event)?).ok()
}
