//! The client side of the connection: each request the agent makes (files, terminals,
//! permission) is handed to the running turn's host in a task of its own, never awaited in the
//! dispatch loop, and answered when the host has decided; updates go to the turn's events.

use std::sync::Arc;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse,
    PermissionOptionKind, ReadTextFileRequest, ReadTextFileResponse, ReleaseTerminalRequest,
    ReleaseTerminalResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionNotification, TerminalExitStatus,
    TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::{Agent, Client, Error};

use super::host::{Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
use super::slot::TurnSlot;
use crate::tool::TerminalExit;

/// The error an agent reads when Tandem refuses or cannot do what it asked.
fn refused(message: String) -> Error {
    Error::new(-32603, message)
}

/// Registers a handler for `$req` that answers with `$work(host, request)` (a future of
/// `Result<Response, String>`), run in its own task.
macro_rules! serve {
    ($builder:expr, $slot:expr, $req:ty, $work:expr) => {
        $builder.on_receive_request(
            {
                let slot = $slot.clone();
                async move |request: $req, responder, _cx| {
                    let Some(host) = slot.host() else {
                        return responder.respond_with_error(refused(
                            "Tandem is not running a turn of this agent now.".into(),
                        ));
                    };
                    tokio::spawn(async move {
                        let answer = $work(host, request).await.map_err(refused);
                        let _ = responder.respond_with_result(answer);
                    });
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
    };
}

/// Runs the connection over `transport` with the client's handlers over `slot`, handing its
/// handle to `ready`, until the agent's output ends or `shutdown` fires.
pub async fn connect(
    slot: Arc<TurnSlot>,
    transport: impl agent_client_protocol::ConnectTo<Client> + 'static,
    ready: tokio::sync::oneshot::Sender<ConnectionTo<Agent>>,
    shutdown: tokio_util::sync::CancellationToken,
) -> Result<(), Error> {
    let builder = Client.v1().name("tandem").on_receive_notification(
        {
            let slot = slot.clone();
            async move |notification: SessionNotification, _cx| {
                slot.update(notification.update);
                Ok(())
            }
        },
        agent_client_protocol::on_receive_notification!(),
    );
    let builder = builder.on_receive_request(
        {
            let slot = slot.clone();
            async move |request: RequestPermissionRequest, responder, _cx| {
                let Some(host) = slot.host() else {
                    return responder.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Cancelled,
                    ));
                };
                let call = slot.calls.lock().unwrap_or_else(|p| p.into_inner()).merge(
                    &request.tool_call.tool_call_id.to_string(),
                    request.tool_call.fields.clone(),
                );
                tokio::spawn(async move {
                    let _ = responder.respond(permission(host, call, request).await);
                });
                Ok(())
            }
        },
        agent_client_protocol::on_receive_request!(),
    );
    let builder = serve!(builder, slot, ReadTextFileRequest, read_file);
    let builder = serve!(builder, slot, WriteTextFileRequest, write_file);
    let builder = serve!(builder, slot, CreateTerminalRequest, create_terminal);
    let builder = serve!(builder, slot, TerminalOutputRequest, terminal_output);
    let builder = serve!(builder, slot, WaitForTerminalExitRequest, wait_for_exit);
    let builder = serve!(builder, slot, KillTerminalRequest, kill_terminal);
    let builder = serve!(builder, slot, ReleaseTerminalRequest, release_terminal);
    builder
        .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
            let _ = ready.send(cx.clone());
            tokio::select! {
                _ = cx.incoming_closed() => {}
                _ = shutdown.cancelled() => {}
            }
            Ok(())
        })
        .await
}

async fn read_file(
    host: Arc<dyn RemoteHost>,
    r: ReadTextFileRequest,
) -> Result<ReadTextFileResponse, String> {
    let text = host.read_text_file(r.path, r.line, r.limit).await?;
    Ok(ReadTextFileResponse::new(text))
}

async fn write_file(
    host: Arc<dyn RemoteHost>,
    r: WriteTextFileRequest,
) -> Result<WriteTextFileResponse, String> {
    host.write_text_file(r.path, r.content).await?;
    Ok(WriteTextFileResponse::new())
}

async fn create_terminal(
    host: Arc<dyn RemoteHost>,
    r: CreateTerminalRequest,
) -> Result<CreateTerminalResponse, String> {
    let request = TerminalRequest {
        command: r.command,
        args: r.args,
        env: r.env.into_iter().map(|v| (v.name, v.value)).collect(),
        cwd: r.cwd,
        output_limit: r.output_byte_limit,
    };
    Ok(CreateTerminalResponse::new(
        host.create_terminal(request).await?,
    ))
}

async fn terminal_output(
    host: Arc<dyn RemoteHost>,
    r: TerminalOutputRequest,
) -> Result<TerminalOutputResponse, String> {
    let out = host.terminal_output(r.terminal_id.to_string()).await?;
    Ok(TerminalOutputResponse::new(out.output, out.truncated)
        .exit_status(out.exit.map(exit_status)))
}

async fn wait_for_exit(
    host: Arc<dyn RemoteHost>,
    r: WaitForTerminalExitRequest,
) -> Result<WaitForTerminalExitResponse, String> {
    let exit = host
        .wait_for_terminal_exit(r.terminal_id.to_string())
        .await?;
    Ok(WaitForTerminalExitResponse::new(exit_status(exit)))
}

async fn kill_terminal(
    host: Arc<dyn RemoteHost>,
    r: KillTerminalRequest,
) -> Result<KillTerminalResponse, String> {
    host.kill_terminal(r.terminal_id.to_string()).await?;
    Ok(KillTerminalResponse::new())
}

async fn release_terminal(
    host: Arc<dyn RemoteHost>,
    r: ReleaseTerminalRequest,
) -> Result<ReleaseTerminalResponse, String> {
    host.release_terminal(r.terminal_id.to_string()).await?;
    Ok(ReleaseTerminalResponse::new())
}

fn exit_status(exit: TerminalExit) -> TerminalExitStatus {
    TerminalExitStatus::new()
        .exit_code(exit.code.map(|c| c as u32))
        .signal(exit.signal)
}

/// A permission question, put to the host with the call as it stands; its answer mapped back
/// to the option the agent offered.
async fn permission(
    host: Arc<dyn RemoteHost>,
    call: super::events::RemoteToolCall,
    request: RequestPermissionRequest,
) -> RequestPermissionResponse {
    let options = request
        .options
        .iter()
        .map(|o| {
            let kind = match o.kind {
                PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
                PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
                PermissionOptionKind::RejectAlways => OptionKind::RejectAlways,
                _ => OptionKind::RejectOnce,
            };
            (o.option_id.to_string(), kind)
        })
        .collect();
    let outcome = match host
        .request_permission(PermissionAsk { call, options })
        .await
    {
        Choice::Selected(id) => {
            RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id))
        }
        Choice::Cancelled => RequestPermissionOutcome::Cancelled,
    };
    RequestPermissionResponse::new(outcome)
}
