//! Sending `session/update`: each update is serialised once, straight to its line, and rides
//! the SDK's outgoing queue wrapped in a `_tandem/line` notification that the stdout writer
//! unwraps. It keeps its place among answers and requests (the queue's order), without the
//! SDK building a `serde_json::Value` tree of it and serialising that again — which was three
//! quarters of the work per streamed chunk (callgrind).

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::SessionNotification;
use agent_client_protocol::{Client, Error, UntypedMessage};
use serde::Serialize;
use serde_json::Value;

/// The wrapper's method; only the stdout writer ever sees it.
pub const LINE_METHOD: &str = "_tandem/line";

#[derive(Serialize)]
struct Notification<'a> {
    jsonrpc: &'static str,
    method: &'static str,
    params: &'a SessionNotification,
}

/// Sends `notification` to the editor, in order with everything else sent on `cx`.
pub fn send(cx: &ConnectionTo<Client>, notification: &SessionNotification) -> Result<(), Error> {
    let line = serde_json::to_string(&Notification {
        jsonrpc: "2.0",
        method: "session/update",
        params: notification,
    })
    .map_err(Error::into_internal_error)?;
    cx.send_notification(UntypedMessage {
        method: LINE_METHOD.into(),
        params: Value::Array(vec![Value::String(line)]),
    })
}

/// The line inside a `_tandem/line` wrapper, or `None` for any other line.
pub fn unwrap_line(line: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Wrapper {
        method: String,
        params: (String,),
    }
    // Cheap test first: the SDK writes the method near the start of the line.
    let head = line.get(..line.len().min(64)).unwrap_or(line);
    if !head.contains(LINE_METHOD) {
        return None;
    }
    let wrapper: Wrapper = serde_json::from_str(line).ok()?;
    (wrapper.method == LINE_METHOD).then_some(wrapper.params.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_line_comes_out_exactly_as_serialised() {
        let inner = r#"{"jsonrpc":"2.0","method":"session/update","params":{"text":"a \"quoted\"\nline ✓"}}"#;
        let wrapper =
            serde_json::json!({"jsonrpc": "2.0", "method": LINE_METHOD, "params": [inner]});
        assert_eq!(unwrap_line(&wrapper.to_string()).as_deref(), Some(inner));
        assert_eq!(unwrap_line(inner), None);
        assert_eq!(unwrap_line(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#), None);
    }
}
