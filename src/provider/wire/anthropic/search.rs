//! Anthropic's own web search (the `web_search` server tool): the tool as offered, its
//! `server_tool_use` query, its `web_search_tool_result` pages, and the citations in the text.

use serde_json::{Value, json};

use crate::message::Source;
use crate::provider::StreamEvent;

/// The server tool's version Tandem offers (the one every current model takes).
pub(super) const TOOL_TYPE: &str = "web_search_20250305";
/// Searches one answer may make.
const MAX_USES: u64 = 5;

/// The server tool as the request's `tools` carries it.
pub(super) fn tool() -> Value {
    json!({"type": TOOL_TYPE, "name": "web_search", "max_uses": MAX_USES})
}

/// The query a finished `server_tool_use` block's input names.
pub(super) fn query_of(input: &str) -> String {
    serde_json::from_str::<Value>(input)
        .ok()
        .and_then(|v| v["query"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A `web_search_tool_result` block: the pages found, or the error Anthropic names.
pub(super) fn result(block: &Value, query: String) -> StreamEvent {
    let content = &block["content"];
    let error = (content["type"] == "web_search_tool_result_error").then(|| {
        format!(
            "the search failed ({})",
            content["error_code"].as_str().unwrap_or("unknown error")
        )
    });
    let sources = content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["type"] == "web_search_result")
        .filter_map(source)
        .collect();
    StreamEvent::SearchDone {
        id: block["tool_use_id"].as_str().unwrap_or_default().to_owned(),
        query,
        sources,
        error,
    }
}

/// A search result or a citation as a page: its URL and title.
pub(super) fn source(value: &Value) -> Option<Source> {
    Some(Source {
        url: value["url"].as_str()?.to_owned(),
        title: value["title"]
            .as_str()
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
    })
}
