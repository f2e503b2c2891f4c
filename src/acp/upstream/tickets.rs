//! Works around the SDK's outgoing path, which builds a `serde_json::Value` tree of every
//! message. Sending `session/update`: each update is serialised once, straight to its line, and handed
//! to the stdout writer under a ticket; a tiny `_tandem/line` notification carrying only the
//! ticket rides the SDK's outgoing queue, so the update keeps its place among answers and
//! requests, and the writer swaps the ticket for the line. The SDK never builds a
//! `serde_json::Value` tree of the update (three quarters of the work per streamed chunk, in
//! callgrind), the line is never escaped into a string and parsed back, and no lock is shared
//! between the sessions and the writer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::SessionNotification;
use agent_client_protocol::{Client, Error, UntypedMessage};
use serde::Serialize;
use serde_json::Value;

use super::old_text;

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

/// Where the sessions hand serialised updates to the stdout writer.
pub struct Outbox {
    lines: mpsc::Sender<(u64, String)>,
    next: AtomicU64,
}

/// The stdout writer's side: the updates handed over, and those that arrived before an
/// earlier ticket's (two sessions sending at once may queue their wrappers in either order).
pub struct Tickets {
    lines: mpsc::Receiver<(u64, String)>,
    early: HashMap<u64, String>,
}

/// An outbox and the writer's side of it.
pub fn outbox() -> (Outbox, Tickets) {
    let (lines, received) = mpsc::channel();
    (
        Outbox {
            lines,
            next: AtomicU64::new(0),
        },
        Tickets {
            lines: received,
            early: HashMap::new(),
        },
    )
}

impl Outbox {
    /// Sends `notification` to the editor, in order with everything else sent on `cx`. The line
    /// is handed over before its wrapper is queued, so it is there when the wrapper is written.
    pub fn send(
        &self,
        cx: &ConnectionTo<Client>,
        notification: &SessionNotification,
    ) -> Result<(), Error> {
        let line = line(notification)?;
        let ticket = self.next.fetch_add(1, Ordering::Relaxed);
        self.lines
            .send((ticket, line))
            .map_err(|_| Error::internal_error().data("the stdout writer has stopped"))?;
        cx.send_notification(UntypedMessage {
            method: LINE_METHOD.into(),
            params: Value::Array(vec![ticket.into()]),
        })
    }
}

impl Tickets {
    /// The update a wrapper line stands for, or `None` for any other line (which goes out as it
    /// is). Only a short line naming the method and a ticket that was handed over is unwrapped.
    pub fn unwrap(&mut self, line: &str) -> Option<String> {
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
        let ticket = wrapper.params.0;
        if let Some(line) = self.early.remove(&ticket) {
            return Some(line);
        }
        while let Ok((handed, line)) = self.lines.try_recv() {
            if handed == ticket {
                return Some(line);
            }
            self.early.insert(handed, line);
        }
        None
    }
}

/// The JSON-RPC line of a `session/update`. A new file's diff gets `"oldText": null`.
pub fn line(notification: &SessionNotification) -> Result<String, Error> {
    let message = Notification {
        jsonrpc: "2.0",
        method: "session/update",
        params: notification,
    };
    if !old_text::in_update(&notification.update) {
        return serde_json::to_string(&message).map_err(Error::into_internal_error);
    }
    let mut value = serde_json::to_value(&message).map_err(Error::into_internal_error)?;
    old_text::mark(value.pointer_mut("/params/update/content"));
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

    fn wrapper(ticket: u64) -> String {
        format!(r#"{{"params":[{ticket}],"method":"{LINE_METHOD}","jsonrpc":"2.0"}}"#)
    }

    #[test]
    fn a_ticket_unwraps_once_whatever_the_field_and_ticket_order() {
        let (outbox, mut tickets) = outbox();
        for (ticket, line) in [(7, "seven"), (8, "eight")] {
            outbox.lines.send((ticket, line.into())).unwrap();
        }
        // Two sessions' wrappers may reach the queue in the other order.
        assert_eq!(tickets.unwrap(&wrapper(8)).as_deref(), Some("eight"));
        assert_eq!(tickets.unwrap(&wrapper(7)).as_deref(), Some("seven"));
        assert_eq!(tickets.unwrap(&wrapper(7)), None, "a ticket is used once");
    }

    #[test]
    fn lines_that_only_mention_the_method_pass_untouched() {
        let (outbox, mut tickets) = outbox();
        outbox.lines.send((0, "the update".into())).unwrap();
        // An update whose text names the method, a short answer that does, a stray ticket.
        let text = line(&update(&format!("{LINE_METHOD} [0]"))).unwrap();
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32601,"message":"{LINE_METHOD}"}}}}"#
        );
        let unknown = format!(r#"{{"jsonrpc":"2.0","method":"{LINE_METHOD}","params":[9]}}"#);
        for other in [&text, &answer, &unknown] {
            assert_eq!(tickets.unwrap(other), None, "{other}");
        }
        assert_eq!(
            tickets.unwrap(&wrapper(0)).as_deref(),
            Some("the update"),
            "the pending update is still there"
        );
    }
}
