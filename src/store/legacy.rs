//! Record shapes written by older Tandems, brought up to date as they are read (never written
//! back): a completed tool call once kept its diffs, attachments and editor terminal inside its
//! untyped `metadata`, where the typed fields now hold them.

use serde_json::Value;

use crate::message::{PartBody, ToolState};

/// Fills a completed call's typed fields from its metadata, when an older Tandem wrote it. The
/// metadata is left as it was, so the call's raw output replays exactly as before.
pub(super) fn upgrade(body: &mut PartBody) {
    let PartBody::Tool(call) = body else {
        return;
    };
    let ToolState::Completed {
        metadata: Value::Object(metadata),
        diffs,
        attachments,
        terminal_id,
        ..
    } = &mut call.state
    else {
        return;
    };
    if diffs.is_empty()
        && let Some(found) = metadata.get("diffs")
    {
        *diffs = serde_json::from_value(found.clone()).unwrap_or_default();
    }
    if attachments.is_empty()
        && let Some(found) = metadata.get("attachments")
    {
        *attachments = serde_json::from_value(found.clone()).unwrap_or_default();
    }
    if terminal_id.is_none() {
        *terminal_id = metadata
            .get("terminalId")
            .and_then(Value::as_str)
            .map(str::to_owned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn old_metadata_fills_the_typed_fields_and_stays() {
        let mut body: PartBody = serde_json::from_value(json!({
            "type": "tool", "call_id": "c", "tool": "bash",
            "state": {"status": "completed", "input": {}, "output": "o", "title": "t",
                      "metadata": {"exitCode": 0, "terminalId": "term-1",
                                   "diffs": [{"path": "/p/a", "oldText": null, "newText": "x"}],
                                   "attachments": [{"mime": "image/png", "data": "AA=="}]},
                      "started_at": 1, "ended_at": 2}
        }))
        .unwrap();
        upgrade(&mut body);
        let PartBody::Tool(call) = body else { panic!() };
        let ToolState::Completed {
            metadata,
            diffs,
            attachments,
            terminal_id,
            ..
        } = call.state
        else {
            panic!()
        };
        assert_eq!(diffs[0].path, std::path::Path::new("/p/a"));
        assert_eq!(diffs[0].old_text, None);
        assert_eq!(attachments[0].mime, "image/png");
        assert_eq!(terminal_id.as_deref(), Some("term-1"));
        assert_eq!(metadata["exitCode"], 0, "the metadata is kept as written");
        assert!(metadata.get("diffs").is_some());
    }
}
