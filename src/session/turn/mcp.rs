//! A turn's MCP side before it runs: the session's servers awaited (bounded), their failures
//! told once, the links that log in to servers that ask shown, and the person's message with
//! a server's prompt or resource filled in.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::bus::Event;
use crate::id::{MessageId, PartId};
use crate::message::PartBody;
use crate::session::core::state::{Services, SessionState};
use crate::tool::ClientPort;
use crate::tool::question::{LinkReply, LinkRequest};

/// Waits (bounded by each server's timeout) until the session's MCP servers are connected or
/// have failed, and tells the person of each new failure. False if the turn was cancelled.
pub(super) async fn ready(
    state: &SessionState,
    services: &Services,
    port: &Arc<dyn ClientPort>,
    cancel: &CancellationToken,
) -> bool {
    if state.mcp.is_empty() {
        return true;
    }
    tokio::select! {
        _ = state.mcp.ready() => {}
        _ = cancel.cancelled() => return false,
    }
    for (name, reason) in state.mcp.new_failures() {
        say(
            state,
            services,
            format!("The MCP server `{name}` is not available in this session: {reason}\n\n"),
        );
    }
    for (name, link) in state.mcp.logins_to_show() {
        show_login(state, services, port, name, link);
    }
    true
}

/// Tandem's own line in the conversation.
fn say(state: &SessionState, services: &Services, text: String) {
    services.bus.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: MessageId::new(),
        part_id: PartId::new(),
        delta: text,
    });
}

/// Shows the person the link that logs them in to the server `name`: the editor's link
/// prompt where it has one (asked aside: the turn goes on; a refusal gives the login up),
/// else a line with the link. The server's tools join the session once the login is done.
fn show_login(
    state: &SessionState,
    services: &Services,
    port: &Arc<dyn ClientPort>,
    name: String,
    link: String,
) {
    let message = format!(
        "The MCP server `{name}` needs you to log in. Its tools join this session once you have."
    );
    if !port.shows_links() {
        say(
            state,
            services,
            format!("{message} Open this link to log in: {link}\n\n"),
        );
        return;
    }
    let request = LinkRequest {
        session_id: state.info.id.clone(),
        id: format!("mcp-login-{name}-{}", ulid::Ulid::new()),
        message,
        url: link,
    };
    let (port, mcp) = (port.clone(), state.mcp.clone());
    tokio::spawn(async move {
        if matches!(
            port.open_link(request).await,
            LinkReply::Declined | LinkReply::Cancelled
        ) {
            mcp.decline_login(&name);
        }
    });
}

/// The person's message with the MCP servers' part done: `/server:prompt args` becomes the
/// prompt's text, and a resource link to a server's resource carries its text. An error is
/// what to tell the person instead of running the turn.
pub(super) async fn content(
    state: &SessionState,
    mut content: Vec<PartBody>,
) -> Result<Vec<PartBody>, String> {
    if state.mcp.is_empty() {
        return Ok(content);
    }
    if let Some(PartBody::Text {
        text,
        synthetic: false,
    }) = content.first()
        && let Some(line) = text.trim().strip_prefix('/')
    {
        let (name, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if let Some(expanded) = state.mcp.expand_prompt(name, args).await {
            let text = expanded.map_err(|e| format!("The prompt /{name} failed: {e}"))?;
            content[0] = PartBody::Text {
                text,
                synthetic: false,
            };
        }
    }
    for part in &mut content {
        if let PartBody::Resource {
            uri,
            text: text @ None,
            ..
        } = part
            && let Some(read) = state.mcp.read_resource(uri).await
        {
            *text = Some(read.map_err(|e| format!("The resource {uri} could not be read: {e}"))?);
        }
    }
    Ok(content)
}
