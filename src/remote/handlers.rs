//! The client side of the connection: the agent's updates go to the running turn, in order;
//! each request it makes (files, terminals, permission) is handed to the turn's host in a
//! task of its own, never awaited in the reading loop, and answered when the host has decided.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, CreateTerminalResponse, KillTerminalRequest, KillTerminalResponse,
    PermissionOptionKind, ReadTextFileRequest, ReadTextFileResponse, ReleaseTerminalRequest,
    ReleaseTerminalResponse, RequestPermissionOutcome, RequestPermissionRequest,
    RequestPermissionResponse, SelectedPermissionOutcome, SessionNotification, TerminalExitStatus,
    TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::mpsc;

use super::events::RemoteToolCall;
use super::host::{Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
use super::rpc::{Call, Responder, RpcError};
use super::slot::TurnSlot;
use crate::tool::TerminalExit;

/// Serves the agent's calls until its connection ends.
pub async fn serve(slot: Arc<TurnSlot>, mut calls: mpsc::UnboundedReceiver<Call>, out: Responder) {
    while let Some(call) = calls.recv().await {
        match call {
            Call::Answer { reply, answer } => {
                let _ = reply.send(answer);
            }
            Call::Notification { method, params } if method == "session/update" => {
                match serde_json::from_value::<SessionNotification>(params) {
                    Ok(notification) => slot.update(notification.update),
                    Err(error) => tracing::debug!(%error, "an update Tandem cannot read"),
                }
            }
            Call::Notification { .. } => {}
            Call::Request { id, method, params } => request(&slot, &out, id, method, params),
        }
    }
}

/// One request of the agent, answered from its own task.
fn request(slot: &TurnSlot, out: &Responder, id: Value, method: String, params: Value) {
    let Some(host) = slot.host() else {
        let refusal = if method == "session/request_permission" {
            to_value(RequestPermissionResponse::new(
                RequestPermissionOutcome::Cancelled,
            ))
        } else {
            Err(RpcError::new(
                -32603,
                "Tandem is not running a turn of this agent now.",
            ))
        };
        out.respond(id, refusal);
        return;
    };
    // A permission question is about the call as it stands, updates merged (in order).
    let call = (method == "session/request_permission")
        .then(|| serde_json::from_value::<RequestPermissionRequest>(params.clone()).ok())
        .flatten()
        .map(|r| {
            let id = r.tool_call.tool_call_id.to_string();
            slot.calls
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .merge(&id, r.tool_call.fields)
        });
    let out = out.clone();
    tokio::spawn(async move {
        let answer = match method.as_str() {
            "session/request_permission" => match call {
                Some(call) => answer(params, |r| permission(host, call, r)).await,
                None => Err(RpcError::new(-32602, "malformed permission request")),
            },
            "fs/read_text_file" => answer(params, |r| read_file(host, r)).await,
            "fs/write_text_file" => answer(params, |r| write_file(host, r)).await,
            "terminal/create" => answer(params, |r| create_terminal(host, r)).await,
            "terminal/output" => answer(params, |r| terminal_output(host, r)).await,
            "terminal/wait_for_exit" => answer(params, |r| wait_for_exit(host, r)).await,
            "terminal/kill" => answer(params, |r| kill_terminal(host, r)).await,
            "terminal/release" => answer(params, |r| release_terminal(host, r)).await,
            _ => Err(RpcError::new(-32601, format!("Method not found: {method}"))),
        };
        out.respond(id, answer);
    });
}

fn to_value(answer: impl Serialize) -> Result<Value, RpcError> {
    serde_json::to_value(answer).map_err(|e| RpcError::new(-32603, e.to_string()))
}

/// Reads the request as `R`, runs `work` on it, and writes its answer.
async fn answer<R: DeserializeOwned, T: Serialize>(
    params: Value,
    work: impl AsyncFnOnce(R) -> Result<T, String>,
) -> Result<Value, RpcError> {
    let request: R =
        serde_json::from_value(params).map_err(|e| RpcError::new(-32602, e.to_string()))?;
    let done = work(request)
        .await
        .map_err(|message| RpcError::new(-32603, message))?;
    to_value(done)
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
    call: RemoteToolCall,
    request: RequestPermissionRequest,
) -> Result<RequestPermissionResponse, String> {
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
    Ok(RequestPermissionResponse::new(outcome))
}
