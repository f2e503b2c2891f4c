//! The ACP connection to one external agent, through the SDK's client side over the agent's
//! stdin and stdout: its updates go to the turn slot in the order they came, its requests to
//! `handlers`, and Tandem's own requests go out through the connection handle.

use std::sync::Arc;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::SessionNotification;
use agent_client_protocol::{Agent, ByteStreams, Client};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::oneshot;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};
use tokio_util::sync::CancellationToken;

use super::handlers;
use super::slot::TurnSlot;

/// Registers `handlers::$handler(slot, request, responder)` for its request type.
macro_rules! on_request {
    ($builder:expr, $slot:expr, $handler:path) => {
        $builder.on_receive_request(
            {
                let slot = $slot.clone();
                async move |request, responder, _cx| {
                    $handler(&slot, request, responder);
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
    };
}

/// A live connection; closed when dropped.
pub struct Connection {
    pub cx: ConnectionTo<Agent>,
    /// Fires when the connection has ended (the agent exited or closed its output).
    pub ended: CancellationToken,
    close: CancellationToken,
}

impl Connection {
    /// Starts speaking ACP over the agent's `stdin` and `stdout`.
    pub async fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
        slot: Arc<TurnSlot>,
    ) -> Result<Self, String> {
        let client = Client.v1().name("tandem");
        let client = client.on_receive_notification(
            {
                let slot = slot.clone();
                async move |notification: SessionNotification, _cx| {
                    slot.update(notification.update);
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        );
        let client = on_request!(client, slot, handlers::request_permission);
        let client = on_request!(client, slot, handlers::read_text_file);
        let client = on_request!(client, slot, handlers::write_text_file);
        let client = on_request!(client, slot, handlers::elicit);
        let client = on_request!(client, slot, handlers::create_terminal);
        let client = on_request!(client, slot, handlers::terminal_output);
        let client = on_request!(client, slot, handlers::wait_for_terminal_exit);
        let client = on_request!(client, slot, handlers::kill_terminal);
        let client = on_request!(client, slot, handlers::release_terminal);
        let transport = ByteStreams::new(stdin.compat_write(), stdout.compat());
        let (ready, handle) = oneshot::channel();
        let (ended, close) = (CancellationToken::new(), CancellationToken::new());
        let (on_end, on_close) = (ended.clone(), close.clone());
        let at_end = ended.clone();
        tokio::spawn(async move {
            let run = client.connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                let _ = ready.send(cx.clone());
                tokio::select! {
                    _ = cx.incoming_closed() => {}
                    _ = on_close.cancelled() => {}
                }
                on_end.cancel();
                Ok(())
            });
            if let Err(error) = run.await {
                tracing::debug!(%error, "an external agent's connection ended");
            }
            at_end.cancel();
        });
        let cx = handle
            .await
            .map_err(|_| "its connection could not be opened".to_owned())?;
        Ok(Self { cx, ended, close })
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.close.cancel();
    }
}
