//! Anthropic Messages over SSE: content blocks (text, thinking with signatures, `tool_use`
//! with streamed JSON input), stop reasons and usage from `message_start`/`message_delta`.

use std::collections::{BTreeMap, VecDeque};

use reqwest::RequestBuilder;
use serde_json::{Value, json};

mod search;

use super::Wire;
use crate::message::{FinishReason, Usage};
use crate::provider::http;
use crate::provider::sse::{Event, Flow, SseParser};
use crate::provider::{
    AssistantContent, ModelMessage, ModelRequest, ProviderError, StreamEvent, UserContent,
};

const API_VERSION: &str = "2023-06-01";
/// The smallest thinking budget Anthropic takes.
const MIN_THINKING: u64 = 1024;
/// Anthropic requires `max_tokens`; used when the model's output limit is not configured.
const DEFAULT_MAX_TOKENS: u64 = 8192;

/// Anthropic's Messages API.
pub struct Messages;

impl Wire for Messages {
    const PATH: &'static str = "/messages";
    const PUBLIC_URL: &'static str = "https://api.anthropic.com/v1";
    type Parser = Parser;

    fn body(request: &ModelRequest) -> Value {
        request_body(request)
    }

    fn authorise(builder: RequestBuilder, key: Option<&str>) -> RequestBuilder {
        let builder = builder.header("anthropic-version", API_VERSION);
        match key {
            Some(key) => builder.header("x-api-key", key),
            None => builder,
        }
    }

    fn parser(provider: String) -> Parser {
        Parser::new(provider)
    }

    /// With thinking (a budget, or adaptive), Anthropic takes no sampling settings of the
    /// person's own; with a budget it wants `max_tokens` above it (at least 1,024): a budget
    /// the answer's limit cannot hold is cut to leave 1,024 tokens for the answer.
    fn adjust(body: &mut Value) {
        let thinking = body["thinking"]["type"].as_str().unwrap_or_default();
        if !matches!(thinking, "enabled" | "adaptive") {
            return;
        }
        if let Some(budget) = body
            .pointer("/thinking/budget_tokens")
            .and_then(Value::as_u64)
            .filter(|_| thinking == "enabled")
        {
            let max = body["max_tokens"].as_u64().unwrap_or(DEFAULT_MAX_TOKENS);
            if max <= budget {
                let fitted = max.saturating_sub(MIN_THINKING).max(MIN_THINKING);
                body["thinking"]["budget_tokens"] = json!(fitted);
                body["max_tokens"] = json!(max.max(fitted + MIN_THINKING));
            }
        }
        if let Some(map) = body.as_object_mut() {
            map.remove("temperature");
            map.remove("top_p");
        }
    }
}

fn request_body(request: &ModelRequest) -> Value {
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages_json(&request.messages),
        "stream": true,
    });
    if !request.system.is_empty() {
        body["system"] = request
            .system
            .iter()
            .map(|text| json!({"type": "text", "text": text}))
            .collect();
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    if request.hosted_search {
        tools.push(search::tool());
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = request.top_p {
        body["top_p"] = json!(p);
    }
    if request.cache_key.is_some() {
        mark_breakpoints(&mut body);
    }
    body
}

/// Anthropic caches the prefix up to each `cache_control` mark (at most four): the tools and
/// the system prompt, which never change within a session, and the last two messages, so the
/// next request (this one plus the answer and the tool results) finds this one cached.
fn mark_breakpoints(body: &mut Value) {
    let ephemeral = || json!({"type": "ephemeral"});
    if let Some(tool) = body["tools"].as_array_mut().and_then(|t| t.last_mut()) {
        tool["cache_control"] = ephemeral();
    }
    if let Some(block) = body["system"].as_array_mut().and_then(|s| s.last_mut()) {
        block["cache_control"] = ephemeral();
    }
    if let Some(messages) = body["messages"].as_array_mut() {
        for message in messages.iter_mut().rev().take(2) {
            let Some(block) = message["content"].as_array_mut().and_then(|c| c.last_mut()) else {
                continue;
            };
            // Thinking blocks cannot carry a mark.
            if block["type"] != "thinking" {
                block["cache_control"] = ephemeral();
            }
        }
    }
}

/// Anthropic wants alternating roles, with tool results inside user messages.
fn messages_json(messages: &[ModelMessage]) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let (role, blocks): (&'static str, Vec<Value>) = match message {
            ModelMessage::User(content) => (
                "user",
                content
                    .iter()
                    .filter_map(|c| match c {
                        UserContent::Text(text) if text.is_empty() => None,
                        UserContent::Text(text) => Some(json!({"type": "text", "text": text})),
                        UserContent::Image { mime, data_base64 } => Some(json!({
                            "type": "image",
                            "source": {"type": "base64", "media_type": mime, "data": data_base64}})),
                    })
                    .collect(),
            ),
            ModelMessage::Assistant(content) => (
                "assistant",
                content
                    .iter()
                    .filter_map(|c| match c {
                        AssistantContent::Text(text) if text.is_empty() => None,
                        AssistantContent::Text(text) => Some(json!({"type": "text", "text": text})),
                        // Unsigned reasoning (from another provider) cannot be sent back.
                        AssistantContent::Reasoning { signature: None, .. } => None,
                        AssistantContent::Reasoning {
                            text,
                            signature: Some(signature),
                            ..
                        } => Some(json!({"type": "thinking", "thinking": text, "signature": signature})),
                        AssistantContent::ToolCall { id, name, input } => Some(
                            json!({"type": "tool_use", "id": id, "name": name, "input": input}),
                        ),
                    })
                    .collect(),
            ),
            ModelMessage::ToolResult {
                call_id,
                output,
                is_error,
                images,
                ..
            } => {
                let content = if images.is_empty() {
                    json!(output)
                } else {
                    let mut blocks = vec![json!({"type": "text", "text": output})];
                    blocks.extend(images.iter().map(|(mime, data)| {
                        json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}})
                    }));
                    Value::Array(blocks)
                };
                (
                    "user",
                    vec![json!({"type": "tool_result", "tool_use_id": call_id,
                                "content": content, "is_error": is_error})],
                )
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

enum Block {
    Text,
    Thinking,
    Tool {
        id: String,
        name: String,
        json: String,
    },
    /// Anthropic's own web search, its input (the query) streaming.
    Search {
        id: String,
        json: String,
    },
    Other,
}

pub struct Parser {
    provider: String,
    blocks: BTreeMap<u64, Block>,
    /// The queries of searches whose results have not come yet, by search id.
    queries: BTreeMap<String, String>,
    usage: Usage,
    finish: Option<FinishReason>,
}

impl Parser {
    fn new(provider: String) -> Self {
        Self {
            provider,
            blocks: BTreeMap::new(),
            queries: BTreeMap::new(),
            usage: Usage::default(),
            finish: None,
        }
    }

    fn read_usage(&mut self, value: &Value) {
        let n = |key: &str| value.get(key).and_then(Value::as_u64);
        if let Some(v) = n("input_tokens") {
            self.usage.input = v;
        }
        if let Some(v) = n("output_tokens") {
            self.usage.output = v;
        }
        if let Some(v) = n("cache_read_input_tokens") {
            self.usage.cache_read = v;
        }
        if let Some(v) = n("cache_creation_input_tokens") {
            self.usage.cache_write = v;
        }
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_use" => FinishReason::ToolCalls,
        "refusal" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

impl Parser {
    /// A content block begins: text, thinking, or a tool call (announced at once).
    fn block_start(&mut self, index: u64, value: &Value, out: &mut VecDeque<StreamEvent>) {
        let block = value.get("content_block").cloned().unwrap_or_default();
        let block = match block.get("type").and_then(Value::as_str) {
            Some("text") => Block::Text,
            Some("thinking") => Block::Thinking,
            Some("tool_use") => {
                let id = block["id"].as_str().unwrap_or_default().to_owned();
                let name = block["name"].as_str().unwrap_or_default().to_owned();
                out.push_back(StreamEvent::ToolCallStart {
                    id: id.clone(),
                    name: name.clone(),
                });
                Block::Tool {
                    id,
                    name,
                    json: String::new(),
                }
            }
            Some("server_tool_use") if block["name"] == "web_search" => {
                let id = block["id"].as_str().unwrap_or_default().to_owned();
                out.push_back(StreamEvent::SearchStarted { id: id.clone() });
                let json = match &block["input"] {
                    Value::Object(input) if !input.is_empty() => block["input"].to_string(),
                    _ => String::new(),
                };
                Block::Search { id, json }
            }
            Some("web_search_tool_result") => {
                let id = block["tool_use_id"].as_str().unwrap_or_default();
                let query = self.queries.remove(id).unwrap_or_default();
                out.push_back(search::result(&block, query));
                Block::Other
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, block);
    }

    /// More of a content block: text, thinking and its signature, or a tool call's JSON.
    fn block_delta(&mut self, index: u64, value: &Value, out: &mut VecDeque<StreamEvent>) {
        let delta = value.get("delta").cloned().unwrap_or_default();
        let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") if !text("text").is_empty() => {
                out.push_back(StreamEvent::TextDelta(text("text").to_owned()))
            }
            Some("thinking_delta") if !text("thinking").is_empty() => {
                out.push_back(StreamEvent::ReasoningDelta(text("thinking").to_owned()))
            }
            Some("signature_delta") => out.push_back(StreamEvent::ReasoningSignature(
                text("signature").to_owned(),
            )),
            Some("input_json_delta") => {
                if let Some(Block::Tool { json, .. } | Block::Search { json, .. }) =
                    self.blocks.get_mut(&index)
                {
                    json.push_str(text("partial_json"));
                }
            }
            Some("citations_delta") => {
                if let Some(source) = search::source(&delta["citation"]) {
                    out.push_back(StreamEvent::Citation(source));
                }
            }
            _ => {}
        }
    }
}

impl SseParser for Parser {
    fn provider(&self) -> &str {
        &self.provider
    }

    fn on_event(
        &mut self,
        event: &Event,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Flow, ProviderError> {
        if event.data.trim().is_empty() {
            return Ok(Flow::More);
        }
        let value: Value =
            serde_json::from_str(&event.data).map_err(|e| ProviderError::Stream {
                provider: self.provider.clone(),
                detail: format!("unreadable event ({e})"),
            })?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&event.event);
        let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "message_start" => {
                if let Some(usage) = value.pointer("/message/usage") {
                    self.read_usage(usage);
                }
            }
            "content_block_start" => self.block_start(index, &value, out),
            "content_block_delta" => self.block_delta(index, &value, out),
            "content_block_stop" => match self.blocks.remove(&index) {
                Some(Block::Search { id, json }) => {
                    self.queries.insert(id, search::query_of(&json));
                }
                Some(Block::Tool { id, name, json }) => {
                    let arguments = if json.trim().is_empty() {
                        "{}".into()
                    } else {
                        json
                    };
                    out.push_back(StreamEvent::ToolCall {
                        id,
                        name,
                        arguments,
                    });
                }
                _ => {}
            },
            "message_delta" => {
                if let Some(reason) = value.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.finish = Some(stop_reason(reason));
                }
                if let Some(usage) = value.get("usage") {
                    self.read_usage(usage);
                }
            }
            "message_stop" => return Ok(Flow::Done),
            "error" => {
                let provider = self.provider.clone();
                let detail = http::error_message(&event.data);
                // Anthropic's own trouble mid-answer: asking again is what its docs advise.
                let transient = matches!(
                    value.pointer("/error/type").and_then(Value::as_str),
                    Some("overloaded_error" | "api_error")
                );
                return Err(if transient {
                    ProviderError::Broken { provider, detail }
                } else {
                    ProviderError::Stream { provider, detail }
                });
            }
            _ => {}
        }
        Ok(Flow::More)
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        let Some(finish) = self.finish.take() else {
            return Err(ProviderError::Broken {
                provider: self.provider.clone(),
                detail: "the stream ended before the message was complete".into(),
            });
        };
        out.push_back(StreamEvent::Usage(self.usage));
        out.push_back(StreamEvent::Finish(finish));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
