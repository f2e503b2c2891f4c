//! `session/prompt` and `session/cancel`: prompt content blocks become message parts, the
//! turn runs on the session's actor, and the answer carries the stop reason.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, EmbeddedResourceResource, PromptRequest, PromptResponse,
    StopReason as AcpStopReason, Usage as TurnUsage,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::updates::air;
use crate::acp::{AcpState, error};
use crate::id::SessionId;
use crate::message::{PartBody, Usage};
use crate::session::StopReason;

pub async fn on_prompt(
    state: Arc<AcpState>,
    request: PromptRequest,
    responder: Responder<PromptResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let content = match parts_from_prompt(request.prompt) {
        Ok(content) => content,
        Err(e) => return responder.respond_with_error(e),
    };
    let session_id = SessionId(request.session_id.0.to_string());
    let port = Arc::new(state.port(&cx));
    // Air asks for a report of the files the turn changed (sent before the answer).
    let report = state
        .air()
        .then(|| air::report_requested(request.meta.as_ref()))
        .flatten();
    cx.clone().spawn(async move {
        let result = match state.manager() {
            Ok(manager) => {
                let before = manager.spent(&session_id).unwrap_or_default();
                // Only a prompt that asks for a report reads the history for it.
                let from = report
                    .as_ref()
                    .map(|_| manager.shown_count(&session_id).unwrap_or(0));
                let stop = manager.prompt(&session_id, content, port).await;
                let after = manager.spent(&session_id).unwrap_or_default();
                if let (Some(request_id), Some(from)) = (&report, from) {
                    let files = manager.files_changed_after(&session_id, from);
                    let files = match &files {
                        Ok(Some(files)) => Ok(files.clone()),
                        _ => Err("notReported"),
                    };
                    let notice = air::file_change_report(session_id.as_str(), request_id, files);
                    let _ = state.outbox.send(&cx, &notice);
                }
                let quota = air::quota(&manager.rate_limits(&session_id));
                stop.map(|stop| {
                    PromptResponse::new(stop_reason(stop))
                        .usage(turn_usage(&before, &after))
                        .meta(quota)
                })
                .map_err(error::from_session)
            }
            Err(e) => Err(e),
        };
        if let Err(e) = &result {
            tracing::warn!(session = %session_id, error = %e.message, "prompt failed");
            // Air records a failed turn (an auth error is answered as one instead).
            if state.air() && e.code != agent_client_protocol::ErrorCode::AUTH_REQUIRED {
                let failure =
                    air::session_failure(session_id.as_str(), &crate::id::ulid(), &e.message);
                let _ = state.outbox.send(&cx, &failure);
            }
        }
        responder.respond_with_result(result)
    })
}

pub async fn on_cancel(
    state: Arc<AcpState>,
    notification: CancelNotification,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    if let Ok(manager) = state.manager() {
        manager.cancel(&SessionId(notification.session_id.0.to_string()));
    }
    Ok(())
}

/// The tokens the turn's model calls spent (ACP's input counts cached tokens too; output
/// includes reasoning), or None when it made none.
fn turn_usage(before: &Usage, after: &Usage) -> Option<TurnUsage> {
    let spent = |f: fn(&Usage) -> u64| f(after).saturating_sub(f(before));
    let cache_read = spent(|u| u.cache_read);
    let cache_write = spent(|u| u.cache_write);
    let input = spent(|u| u.input) + cache_read + cache_write;
    let output = spent(|u| u.output);
    let reasoning = spent(|u| u.reasoning);
    if input + output == 0 {
        return None;
    }
    Some(
        TurnUsage::new(input + output, input, output)
            .thought_tokens((reasoning > 0).then_some(reasoning))
            .cached_read_tokens(cache_read)
            .cached_write_tokens(cache_write),
    )
}

fn stop_reason(stop: StopReason) -> AcpStopReason {
    match stop {
        StopReason::EndTurn => AcpStopReason::EndTurn,
        StopReason::MaxTokens => AcpStopReason::MaxTokens,
        StopReason::MaxTurnRequests => AcpStopReason::MaxTurnRequests,
        StopReason::Refusal => AcpStopReason::Refusal,
        StopReason::Cancelled => AcpStopReason::Cancelled,
    }
}

/// Prompt blocks → user message parts. Audio is not advertised, so it is refused.
pub(super) fn parts_from_prompt(blocks: Vec<ContentBlock>) -> Result<Vec<PartBody>, Error> {
    let mut parts = Vec::with_capacity(blocks.len());
    for block in blocks {
        parts.push(match block {
            ContentBlock::Text(text) => PartBody::Text {
                text: text.text,
                synthetic: false,
            },
            ContentBlock::Image(image) => PartBody::File {
                url: format!("data:{};base64,{}", image.mime_type, image.data),
                mime: image.mime_type,
                filename: image.uri,
            },
            ContentBlock::ResourceLink(link) => PartBody::Resource {
                uri: link.uri,
                name: Some(link.name),
                mime: link.mime_type,
                text: None,
            },
            ContentBlock::Resource(embedded) => match embedded.resource {
                EmbeddedResourceResource::TextResourceContents(res) => PartBody::Resource {
                    uri: res.uri,
                    name: None,
                    mime: res.mime_type,
                    text: Some(res.text),
                },
                EmbeddedResourceResource::BlobResourceContents(res) => {
                    let mime = res
                        .mime_type
                        .unwrap_or_else(|| "application/octet-stream".into());
                    PartBody::File {
                        url: format!("data:{mime};base64,{}", res.blob),
                        mime,
                        filename: Some(res.uri),
                    }
                }
                _ => return Err(unsupported("this kind of embedded resource")),
            },
            ContentBlock::Audio(_) => return Err(unsupported("audio")),
            _ => return Err(unsupported("this kind of content block")),
        });
    }
    Ok(parts)
}

fn unsupported(what: &str) -> Error {
    Error::invalid_params().data(format!("Tandem does not accept {what} in prompts"))
}
