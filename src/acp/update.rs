//! Sending `session/update`: each update is serialised once, straight to its line, and kept in
//! an outbox under a ticket; a tiny `_tandem/line` notification carrying only the ticket rides
//! the SDK's outgoing queue, so the update keeps its place among answers and requests, and the
//! stdout writer swaps the ticket for the line. The SDK never builds a `serde_json::Value`
//! tree of the update (three quarters of the work per streamed chunk, in callgrind), and the
//! line is never escaped into a string and parsed back.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::SessionNotification;
use agent_client_protocol::{Client, Error, UntypedMessage};
use serde::Serialize;
use serde_json::Value;

use super::new_files;

/// The wrapper's method; only the stdout writer ever sees it.
pub const LINE_METHOD: &str = "_tandem/line";

/// A wrapper line is `{"jsonrpc":"2.0","method":"_tandem/line","params":[<ticket>]}` with its
/// fields in any order: under 100 bytes. Longer lines are never parsed.
const MAX_WRAPPER_LEN: usize = 128;

#[derive(Serialize)]
struct Notification<'a> {
    jsonrpc: &'static str,
    method: &'static str,
    params: &'a SessionNotification,
}

/// Updates serialised and waiting for their wrapper to reach the stdout writer.
#[derive(Default)]
pub struct Outbox {
    lines: Mutex<HashMap<u64, String>>,
    next: AtomicU64,
}

impl Outbox {
    /// Sends `notification` to the editor, in order with everything else sent on `cx`.
    pub fn send(
        &self,
        cx: &ConnectionTo<Client>,
        notification: &SessionNotification,
    ) -> Result<(), Error> {
        let line = line(notification)?;
        let ticket = self.next.fetch_add(1, Ordering::Relaxed);
        self.lines().insert(ticket, line);
        let wrapper = UntypedMessage {
            method: LINE_METHOD.into(),
            params: Value::Array(vec![ticket.into()]),
        };
        cx.send_notification(wrapper).inspect_err(|_| {
            self.lines().remove(&ticket);
        })
    }

    /// The update a wrapper line stands for, or `None` for any other line (which goes out as it
    /// is). Only a short line naming the method and a ticket this outbox issued is unwrapped.
    pub fn unwrap(&self, line: &str) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Wrapper {
            method: String,
            params: (u64,),
        }
        if line.len() > MAX_WRAPPER_LEN || !line.contains(LINE_METHOD) {
            return None;
        }
        let wrapper: Wrapper = serde_json::from_str(line).ok()?;
        if wrapper.method != LINE_METHOD {
            return None;
        }
        self.lines().remove(&wrapper.params.0)
    }

    fn lines(&self) -> std::sync::MutexGuard<'_, HashMap<u64, String>> {
        self.lines.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The JSON-RPC line of a `session/update`. A new file's diff gets `"oldText": null`.
pub fn line(notification: &SessionNotification) -> Result<String, Error> {
    let message = Notification {
        jsonrpc: "2.0",
        method: "session/update",
        params: notification,
    };
    if !new_files::in_update(&notification.update) {
        return serde_json::to_string(&message).map_err(Error::into_internal_error);
    }
    let mut value = serde_json::to_value(&message).map_err(Error::into_internal_error)?;
    new_files::mark(value.pointer_mut("/params/update/content"));
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_client_protocol::v1::schema::{ContentChunk, SessionUpdate};

    fn update(text: &str) -> SessionNotification {
        SessionNotification::new(
            "s1",
            SessionUpdate::AgentMessageChunk(ContentChunk::new(text.to_owned().into())),
        )
    }

    #[test]
    fn a_ticket_unwraps_once_whatever_the_field_order() {
        let outbox = Outbox::default();
        outbox.lines().insert(7, "the update".into());
        let reordered = format!(r#"{{"params":[7],"method":"{LINE_METHOD}","jsonrpc":"2.0"}}"#);
        assert_eq!(outbox.unwrap(&reordered).as_deref(), Some("the update"));
        assert_eq!(outbox.unwrap(&reordered), None, "a ticket is used once");
    }

    #[test]
    fn lines_that_only_mention_the_method_pass_untouched() {
        let outbox = Outbox::default();
        outbox.lines().insert(0, "the update".into());
        // An update whose text names the method, a short answer that does, a stray ticket.
        let text = line(&update(&format!("{LINE_METHOD} [0]"))).unwrap();
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32601,"message":"{LINE_METHOD}"}}}}"#
        );
        let unknown = format!(r#"{{"jsonrpc":"2.0","method":"{LINE_METHOD}","params":[9]}}"#);
        for other in [&text, &answer, &unknown] {
            assert_eq!(outbox.unwrap(other), None, "{other}");
        }
        assert_eq!(outbox.lines().len(), 1, "the pending update is still there");
    }
}
