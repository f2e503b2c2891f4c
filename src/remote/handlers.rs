//! The client side of the connection: each request the agent makes (files, terminals,
//! permission, forms) is handed to the running turn's host in a task of its own, never awaited
//! in the SDK's dispatch loop, and answered when the host has decided.

use std::sync::Arc;

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, CreateTerminalRequest,
    CreateTerminalResponse, ElicitationAction, KillTerminalRequest, KillTerminalResponse,
    PermissionOptionKind, ReadTextFileRequest, ReadTextFileResponse, ReleaseTerminalRequest,
    ReleaseTerminalResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, TerminalExitStatus,
    TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::{Error, JsonRpcResponse};
use futures::future::BoxFuture;

use super::host::{Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
use super::slot::TurnSlot;
use crate::tool::TerminalExit;

/// Answers `responder` from a task of its own with what `work` makes of the turn's host; a
/// request outside a turn is refused.
fn answer<T: JsonRpcResponse + Send + 'static>(
    slot: &TurnSlot,
    responder: Responder<T>,
    work: impl FnOnce(Arc<dyn RemoteHost>) -> BoxFuture<'static, Result<T, String>> + Send + 'static,
) {
    let Some(host) = slot.host() else {
        let _ = responder.respond_with_error(
            Error::internal_error().data("Tandem is not running a turn of this agent now."),
        );
        return;
    };
    tokio::spawn(async move {
        let _ = match work(host).await {
            Ok(answer) => responder.respond(answer),
            Err(message) => responder.respond_with_error(Error::new(-32603, message)),
        };
    });
}

pub fn read_text_file(
    slot: &TurnSlot,
    request: ReadTextFileRequest,
    responder: Responder<ReadTextFileResponse>,
) {
    answer(slot, responder, move |host| {
        Box::pin(async move {
            let text = host
                .read_text_file(request.path, request.line, request.limit)
                .await?;
            Ok(ReadTextFileResponse::new(text))
        })
    });
}

pub fn write_text_file(
    slot: &TurnSlot,
    request: WriteTextFileRequest,
    responder: Responder<WriteTextFileResponse>,
) {
    answer(slot, responder, move |host| {
        Box::pin(async move {
            host.write_text_file(request.path, request.content).await?;
            Ok(WriteTextFileResponse::new())
        })
    });
}

pub fn create_terminal(
    slot: &TurnSlot,
    request: CreateTerminalRequest,
    responder: Responder<CreateTerminalResponse>,
) {
    let request = TerminalRequest {
        command: request.command,
        args: request.args,
        env: request.env.into_iter().map(|v| (v.name, v.value)).collect(),
        cwd: request.cwd,
        output_limit: request.output_byte_limit,
    };
    answer(slot, responder, move |host| {
        Box::pin(async move {
            Ok(CreateTerminalResponse::new(
                host.create_terminal(request).await?,
            ))
        })
    });
}

pub fn terminal_output(
    slot: &TurnSlot,
    request: TerminalOutputRequest,
    responder: Responder<TerminalOutputResponse>,
) {
    answer(slot, responder, move |host| {
        Box::pin(async move {
            let out = host
                .terminal_output(request.terminal_id.0.to_string())
                .await?;
            Ok(TerminalOutputResponse::new(out.output, out.truncated)
                .exit_status(out.exit.map(exit_status)))
        })
    });
}

pub fn wait_for_terminal_exit(
    slot: &TurnSlot,
    request: WaitForTerminalExitRequest,
    responder: Responder<WaitForTerminalExitResponse>,
) {
    answer(slot, responder, move |host| {
        Box::pin(async move {
            let exit = host
                .wait_for_terminal_exit(request.terminal_id.0.to_string())
                .await?;
            Ok(WaitForTerminalExitResponse::new(exit_status(exit)))
        })
    });
}

pub fn kill_terminal(
    slot: &TurnSlot,
    request: KillTerminalRequest,
    responder: Responder<KillTerminalResponse>,
) {
    answer(slot, responder, move |host| {
        Box::pin(async move {
            host.kill_terminal(request.terminal_id.0.to_string())
                .await?;
            Ok(KillTerminalResponse::new())
        })
    });
}

pub fn release_terminal(
    slot: &TurnSlot,
    request: ReleaseTerminalRequest,
    responder: Responder<ReleaseTerminalResponse>,
) {
    answer(slot, responder, move |host| {
        Box::pin(async move {
            host.release_terminal(request.terminal_id.0.to_string())
                .await?;
            Ok(ReleaseTerminalResponse::new())
        })
    });
}

fn exit_status(exit: TerminalExit) -> TerminalExitStatus {
    TerminalExitStatus::new()
        .exit_code(exit.code.and_then(|code| u32::try_from(code).ok()))
        .signal(exit.signal)
}

/// A form the agent asks the person to fill in; a URL request (or one of a mode Tandem does
/// not know) is declined.
pub fn elicit(
    slot: &TurnSlot,
    request: CreateElicitationRequest,
    responder: Responder<CreateElicitationResponse>,
) {
    let form = super::form::read(&request);
    answer(slot, responder, move |host| {
        Box::pin(async move {
            Ok(match form {
                Some(form) => super::elicit::ask(host.as_ref(), form).await,
                None => CreateElicitationResponse::new(ElicitationAction::Decline),
            })
        })
    });
}

/// A permission question, put to the host with the call as it stands (the agent's updates
/// merged, in order); its answer mapped back to the option the agent offered. Outside a turn
/// the question is cancelled.
pub fn request_permission(
    slot: &TurnSlot,
    request: RequestPermissionRequest,
    responder: Responder<RequestPermissionResponse>,
) {
    let Some(host) = slot.host() else {
        let _ = responder.respond(RequestPermissionResponse::new(
            RequestPermissionOutcome::Cancelled,
        ));
        return;
    };
    let call = slot
        .calls
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .merge(request.tool_call);
    let options = request
        .options
        .into_iter()
        .map(|option| {
            let kind = match option.kind {
                PermissionOptionKind::AllowOnce => OptionKind::AllowOnce,
                PermissionOptionKind::AllowAlways => OptionKind::AllowAlways,
                PermissionOptionKind::RejectAlways => OptionKind::RejectAlways,
                _ => OptionKind::RejectOnce,
            };
            (option.option_id.0.to_string(), kind)
        })
        .collect();
    tokio::spawn(async move {
        let outcome = match host
            .request_permission(PermissionAsk { call, options })
            .await
        {
            Choice::Selected(id) => {
                RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id))
            }
            Choice::Cancelled => RequestPermissionOutcome::Cancelled,
        };
        let _ = responder.respond(RequestPermissionResponse::new(outcome));
    });
}
