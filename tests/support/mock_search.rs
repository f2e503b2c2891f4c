//! The providers' own web search in their real SSE formats: OpenAI Responses `web_search_call`
//! items with `url_citation` annotations, Anthropic `server_tool_use` and
//! `web_search_tool_result` blocks with `citations_delta`s.

use serde_json::{Value, json};

use super::MockResponse;

fn event(value: Value) -> (Option<&'static str>, String) {
    (None, value.to_string())
}

fn named(name: &'static str, value: Value) -> (Option<&'static str>, String) {
    (Some(name), value.to_string())
}

/// Responses: one search for `query` finding `urls`, then `text` citing each `(url, title)`.
pub fn responses_search(
    query: &str,
    urls: &[&str],
    text: &str,
    cited: &[(&str, &str)],
) -> MockResponse {
    let sources: Vec<Value> = urls
        .iter()
        .map(|u| json!({"type": "url", "url": u}))
        .collect();
    let mut events = vec![
        event(json!({"type": "response.created", "response": {"status": "in_progress"}})),
        event(
            json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}}),
        ),
        event(
            json!({"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_1"}),
        ),
        event(
            json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"}),
        ),
        event(
            json!({"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"}),
        ),
        event(
            json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                     "action": {"type": "search", "query": query, "sources": sources}}}),
        ),
        event(
            json!({"type": "response.output_item.added", "output_index": 1,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
        ),
        event(
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
            "content_index": 0, "delta": text}),
        ),
    ];
    for (n, (url, title)) in cited.iter().enumerate() {
        events.push(event(
            json!({"type": "response.output_text.annotation.added",
            "item_id": "msg_1", "output_index": 1, "content_index": 0, "annotation_index": n,
            "annotation": {"type": "url_citation", "start_index": 0, "end_index": text.len(),
                           "url": url, "title": title}}),
        ));
    }
    events.push(event(
        json!({"type": "response.completed", "response": {"status": "completed",
        "usage": {"input_tokens": 300, "output_tokens": 40}}}),
    ));
    MockResponse::sse(events)
}

/// Anthropic: one search for `query` finding `(url, title)` pages, then `text` citing the first.
pub fn anthropic_search(query: &str, found: &[(&str, &str)], text: &str) -> MockResponse {
    let results: Vec<Value> = found
        .iter()
        .map(|(url, title)| {
            json!({"type": "web_search_result", "url": url, "title": title,
                                   "encrypted_content": "ENC", "page_age": "April 1, 2026"})
        })
        .collect();
    let (url, title) = found[0];
    let events = vec![
        named(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_s",
            "type": "message", "role": "assistant", "content": [],
            "usage": {"input_tokens": 500, "output_tokens": 1}}}),
        ),
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
        ),
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{\"query\": "}}),
        ),
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": json!(query).to_string() + "}"}}),
        ),
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                              "content": results}}),
        ),
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        named(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2,
            "content_block": {"type": "text", "text": ""}}),
        ),
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2,
            "delta": {"type": "citations_delta", "citation": {"type": "web_search_result_location",
                "url": url, "title": title, "cited_text": "…", "encrypted_index": "EI"}}}),
        ),
        named(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2,
            "delta": {"type": "text_delta", "text": text}}),
        ),
        named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 2}),
        ),
        named(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 30, "server_tool_use": {"web_search_requests": 1}}}),
        ),
        named("message_stop", json!({"type": "message_stop"})),
    ];
    MockResponse::sse(events)
}
