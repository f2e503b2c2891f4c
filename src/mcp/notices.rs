//! What an MCP server tells or asks us unasked: progress of a call (routed to that call's live
//! output by its progress token), `tools/list_changed` (the tool list is read again before the
//! next step) and questions for the person (`elicit`). Both are seen as the transport reads them (`Watched`), so in order with the answers:
//! a notification sent before a call's answer is never handled after it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use std::future::Future;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, JsonRpcMessage, ProgressNotificationParam,
    ProgressToken, ServerNotification,
};
use rmcp::service::{RequestContext, RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};

use super::elicit::Askers;
use rmcp::transport::Transport;
use tokio::sync::mpsc;

/// Progress lines for a call not followed yet are kept, up to this many.
const EARLY_LINES: usize = 100;

/// Where a progress token's lines go.
enum Route {
    /// The call's output.
    Follower(mpsc::UnboundedSender<String>),
    /// Lines that came before the call was followed.
    Early(Vec<String>),
}

/// Routes a connection's notifications.
#[derive(Clone, Default)]
pub(super) struct Notices {
    progress: Arc<Mutex<HashMap<String, Route>>>,
    tools_changed: Arc<AtomicBool>,
    /// The calls running now, whose person answers the server's questions.
    pub askers: Askers,
}

fn key(token: &ProgressToken) -> String {
    serde_json::to_string(&token.0).unwrap_or_default()
}

impl Notices {
    /// Progress of the request with `token` from now on; dropped with the returned receiver's
    /// `forget`.
    pub fn follow(&self, token: &ProgressToken) -> mpsc::UnboundedReceiver<String> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Some(Route::Early(lines)) =
            self.lock().insert(key(token), Route::Follower(tx.clone()))
        {
            for line in lines {
                let _ = tx.send(line);
            }
        }
        rx
    }

    pub fn forget(&self, token: &ProgressToken) {
        self.lock().remove(&key(token));
    }

    /// True once after the server said its tool list changed.
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Route>> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn on_progress(&self, params: &ProgressNotificationParam) {
        let line = match (&params.message, params.total) {
            (Some(message), _) => format!("{message}\n"),
            (None, Some(total)) => format!("progress {} / {total}\n", params.progress),
            (None, None) => format!("progress {}\n", params.progress),
        };
        let mut routes = self.lock();
        match routes
            .entry(key(&params.progress_token))
            .or_insert_with(|| Route::Early(Vec::new()))
        {
            Route::Follower(tx) => {
                let _ = tx.send(line);
            }
            Route::Early(lines) if lines.len() < EARLY_LINES => lines.push(line),
            Route::Early(_) => {}
        }
    }

    /// Notes what `message` tells, as it is read.
    fn observe(&self, message: &RxJsonRpcMessage<RoleClient>) {
        let JsonRpcMessage::Notification(notification) = message else {
            return;
        };
        match &notification.notification {
            ServerNotification::ProgressNotification(progress) => {
                self.on_progress(&progress.params)
            }
            ServerNotification::ToolListChangedNotification(_) => {
                self.tools_changed.store(true, Ordering::Relaxed);
            }
            _ => {}
        }
    }
}

/// Notifications are seen on the way in; the handler answers the server's questions and says
/// that Tandem takes them.
impl ClientHandler for Notices {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.client_info = Implementation::new("tandem", env!("CARGO_PKG_VERSION"));
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        config.capabilities = capabilities;
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        Ok(super::elicit::answer(self.askers.current(), request).await)
    }
}

/// A transport whose incoming notifications `Notices` sees as they are read.
pub(super) struct Watched<T> {
    pub inner: T,
    pub notices: Notices,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Watched<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        self.notices.observe(&message);
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
