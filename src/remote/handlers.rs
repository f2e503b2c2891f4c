//! The client side of the connection: the agent's updates go to the running turn, in order;
//! each request it makes (files, terminals, permission) is handed to the turn's host in a
//! task of its own, never awaited in the reading loop, and answered when the host has decided.

use std::sync::Arc;

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
                slot.update(wire::Streamed::read(&params));
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
        .then(|| wire::permission_request(&params))
        .flatten()
        .map(|(fields, options)| {
            let calls = &mut slot.calls.lock().unwrap_or_else(|p| p.into_inner());
            (calls.merge(fields), options)
        });
    let out = out.clone();
    tokio::spawn(async move {
        let answer = match method.as_str() {
            "session/request_permission" => match asked {
                Some((call, options)) => Ok(permission(host, call, options).await),
                None => Err(RpcError::new(-32602, "malformed permission request")),
            },
            "fs/read_text_file" => match path(&params) {
                Some(path) => {
                    let (line, limit) = (number(&params, "line"), number(&params, "limit"));
                    host.read_text_file(path, line, limit)
                        .await
                        .map(|text| json!({"content": text}))
                        .map_err(refused)
                }
                None => Err(malformed()),
            },
            "fs/write_text_file" => match (path(&params), wire::text(&params, "content")) {
                (Some(path), Some(content)) => host
                    .write_text_file(path, content)
                    .await
                    .map(|()| json!({}))
                    .map_err(refused),
                _ => Err(malformed()),
            },
            "elicitation/create" => match wire::form::read(&params) {
                Some(form) => Ok(super::elicit::ask(host.as_ref(), form).await),
                None => Ok(json!({"action": "decline"})),
            },
            "terminal/create" => match terminal_request(&params) {
                Some(request) => host
                    .create_terminal(request)
                    .await
                    .map(|id| json!({"terminalId": id}))
                    .map_err(refused),
                None => Err(malformed()),
            },
            "terminal/output" | "terminal/wait_for_exit" | "terminal/kill" | "terminal/release" => {
                match wire::text(&params, "terminalId") {
                    Some(id) => terminal(host.as_ref(), &method, id).await.map_err(refused),
                    None => Err(malformed()),
                }
            }
            _ => Err(RpcError::new(-32601, format!("Method not found: {method}"))),
        };
        out.respond(id, answer);
    });
}

fn refused(message: String) -> RpcError {
    RpcError::new(-32603, message)
}

fn malformed() -> RpcError {
    RpcError::new(-32602, "Invalid params")
}

fn path(params: &Value) -> Option<std::path::PathBuf> {
    path_at(params, "path")
}

fn number(params: &Value, key: &str) -> Option<u32> {
    params[key].as_u64().map(|n| n as u32)
}

fn terminal_request(params: &Value) -> Option<TerminalRequest> {
    let strings = |key: &str| -> Vec<String> {
        params[key]
            .as_array()
            .map(|all| {
                all.iter()
                    .filter_map(|a| a.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let env = params["env"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|v| Some((wire::text(v, "name")?, wire::text(v, "value")?)))
                .collect()
        })
        .unwrap_or_default();
    Some(TerminalRequest {
        command: wire::text(params, "command")?,
        args: strings("args"),
        env,
        cwd: path_at(params, "cwd"),
        output_limit: params["outputByteLimit"].as_u64(),
    })
}

fn path_at(params: &Value, key: &str) -> Option<std::path::PathBuf> {
    wire::text(params, key).map(Into::into)
}

/// The terminal requests after `terminal/create`, on terminal `id`.
async fn terminal(host: &dyn RemoteHost, method: &str, id: String) -> Result<Value, String> {
    Ok(match method {
        "terminal/output" => {
            let out = host.terminal_output(id).await?;
            json!({"output": out.output, "truncated": out.truncated,
                   "exitStatus": out.exit.map(exit_status)})
        }
        "terminal/wait_for_exit" => exit_status(host.wait_for_terminal_exit(id).await?),
        "terminal/kill" => {
            host.kill_terminal(id).await?;
            json!({})
        }
        _ => {
            host.release_terminal(id).await?;
            json!({})
        }
    })
}

fn exit_status(exit: TerminalExit) -> Value {
    json!({"exitCode": exit.code, "signal": exit.signal})
}

/// A permission question, put to the host with the call as it stands; its answer mapped back
/// to the option the agent offered.
async fn permission(
    host: Arc<dyn RemoteHost>,
    call: RemoteToolCall,
    offered: Vec<(String, String)>,
) -> Value {
    let options = offered
        .into_iter()
        .map(|(id, kind)| {
            let kind = match kind.as_str() {
                "allow_once" => OptionKind::AllowOnce,
                "allow_always" => OptionKind::AllowAlways,
                "reject_always" => OptionKind::RejectAlways,
                _ => OptionKind::RejectOnce,
            };
            (id, kind)
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
