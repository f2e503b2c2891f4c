//! The client side of the connection: the agent's updates go to the running turn, in order;
//! each request it makes (files, terminals, permission) is handed to the turn's host in a
//! task of its own, never awaited in the reading loop, and answered when the host has decided.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::events::RemoteToolCall;
use super::host::{Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
use super::rpc::{Call, Responder, RpcError};
use super::slot::TurnSlot;
use super::wire;
use crate::tool::TerminalExit;

/// Serves the agent's calls until its connection ends.
pub async fn serve(slot: Arc<TurnSlot>, mut calls: mpsc::UnboundedReceiver<Call>, out: Responder) {
    while let Some(call) = calls.recv().await {
        match call {
            Call::Answer { reply, answer } => {
                let _ = reply.send(answer);
            }
            Call::Notification { method, params } if method == "session/update" => {
                match serde_json::from_value::<wire::Notification>(params) {
                    Ok(notification) => slot.update(notification.update),
                    Err(error) => tracing::debug!(%error, "an update Tandem cannot read"),
                }
            }
            Call::Notification { .. } => {}
            Call::Request { id, method, params } => request(&slot, &out, id, method, params),
        }
    }
}

const CANCELLED: &str = r#"{"outcome":{"outcome":"cancelled"}}"#;

/// One request of the agent, answered from its own task.
fn request(slot: &TurnSlot, out: &Responder, id: Value, method: String, params: Value) {
    let Some(host) = slot.host() else {
        let refusal = if method == "session/request_permission" {
            Ok(serde_json::from_str(CANCELLED).expect("a valid answer"))
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
    let asked = (method == "session/request_permission")
        .then(|| serde_json::from_value::<wire::PermissionRequest>(params.clone()).ok())
        .flatten()
        .map(|r| {
            let calls = &mut slot.calls.lock().unwrap_or_else(|p| p.into_inner());
            (calls.merge(r.tool_call), r.options)
        });
    let out = out.clone();
    tokio::spawn(async move {
        let answer = match method.as_str() {
            "session/request_permission" => match asked {
                Some((call, options)) => Ok(permission(host, call, options).await),
                None => Err(RpcError::new(-32602, "malformed permission request")),
            },
            "fs/read_text_file" => {
                answer(params, async |r: wire::ReadFile| {
                    let text = host.read_text_file(r.path, r.line, r.limit).await?;
                    Ok(json!({"content": text}))
                })
                .await
            }
            "fs/write_text_file" => {
                answer(params, async |r: wire::WriteFile| {
                    host.write_text_file(r.path, r.content).await?;
                    Ok(json!({}))
                })
                .await
            }
            "terminal/create" => answer(params, |r| create_terminal(host, r)).await,
            "terminal/output" => {
                answer(params, async |r: wire::TerminalRef| {
                    let out = host.terminal_output(r.terminal_id).await?;
                    Ok(json!({"output": out.output, "truncated": out.truncated,
                              "exitStatus": out.exit.map(exit_status)}))
                })
                .await
            }
            "terminal/wait_for_exit" => {
                answer(params, async |r: wire::TerminalRef| {
                    Ok(exit_status(
                        host.wait_for_terminal_exit(r.terminal_id).await?,
                    ))
                })
                .await
            }
            "terminal/kill" => {
                answer(params, async |r: wire::TerminalRef| {
                    host.kill_terminal(r.terminal_id).await?;
                    Ok(json!({}))
                })
                .await
            }
            "terminal/release" => {
                answer(params, async |r: wire::TerminalRef| {
                    host.release_terminal(r.terminal_id).await?;
                    Ok(json!({}))
                })
                .await
            }
            _ => Err(RpcError::new(-32601, format!("Method not found: {method}"))),
        };
        out.respond(id, answer);
    });
}

/// Reads the request as `R` and runs `work` on it.
async fn answer<R: DeserializeOwned>(
    params: Value,
    work: impl AsyncFnOnce(R) -> Result<Value, String>,
) -> Result<Value, RpcError> {
    let request: R =
        serde_json::from_value(params).map_err(|e| RpcError::new(-32602, e.to_string()))?;
    work(request)
        .await
        .map_err(|message| RpcError::new(-32603, message))
}

async fn create_terminal(
    host: Arc<dyn RemoteHost>,
    r: wire::CreateTerminal,
) -> Result<Value, String> {
    let request = TerminalRequest {
        command: r.command,
        args: r.args,
        env: r.env.into_iter().map(|v| (v.name, v.value)).collect(),
        cwd: r.cwd,
        output_limit: r.output_byte_limit,
    };
    Ok(json!({"terminalId": host.create_terminal(request).await?}))
}

fn exit_status(exit: TerminalExit) -> Value {
    json!({"exitCode": exit.code, "signal": exit.signal})
}

/// A permission question, put to the host with the call as it stands; its answer mapped back
/// to the option the agent offered.
async fn permission(
    host: Arc<dyn RemoteHost>,
    call: RemoteToolCall,
    offered: Vec<wire::PermissionOption>,
) -> Value {
    let options = offered
        .into_iter()
        .map(|o| {
            let kind = match o.kind.as_str() {
                "allow_once" => OptionKind::AllowOnce,
                "allow_always" => OptionKind::AllowAlways,
                "reject_always" => OptionKind::RejectAlways,
                _ => OptionKind::RejectOnce,
            };
            (o.option_id, kind)
        })
        .collect();
    match host
        .request_permission(PermissionAsk { call, options })
        .await
    {
        Choice::Selected(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
        Choice::Cancelled => serde_json::from_str(CANCELLED).expect("a valid answer"),
    }
}
