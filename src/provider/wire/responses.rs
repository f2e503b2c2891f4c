//! OpenAI's Responses API over SSE: the conversation as input items, reasoning kept between
//! steps as encrypted items sent back (`store: false`), summaries shown as thoughts, function
//! calls with streamed arguments, usage with cached and reasoning tokens.

use std::collections::VecDeque;

use reqwest::RequestBuilder;
use serde_json::{Value, json};

use super::Wire;
use crate::message::{FinishReason, ReasoningItem, Source, Usage};
use crate::provider::http;
use crate::provider::sse::{Event, Flow, SseParser};
use crate::provider::{
    AssistantContent, ModelMessage, ModelRequest, ProviderError, StreamEvent, UserContent,
};

/// OpenAI's Responses API (`POST /responses`).
pub struct Responses;

impl Wire for Responses {
    const PATH: &'static str = "/responses";
    const PUBLIC_URL: &'static str = "https://api.openai.com/v1";
    type Parser = Parser;

    fn body(request: &ModelRequest) -> Value {
        request_body(request)
    }

    fn authorise(builder: RequestBuilder, key: Option<&str>) -> RequestBuilder {
        super::bearer(builder, key)
    }

    fn parser(provider: String) -> Parser {
        Parser::new(provider)
    }
}

fn request_body(request: &ModelRequest) -> Value {
    let mut input = Vec::with_capacity(request.messages.len());
    for message in &request.messages {
        push_items(message, &mut input);
    }
    let mut body = json!({
        "model": request.model,
        "input": input,
        "stream": true,
        // Nothing is kept on OpenAI's side: reasoning travels back encrypted instead.
        "store": false,
        "include": ["reasoning.encrypted_content"],
    });
    if !request.system.is_empty() {
        body["instructions"] = json!(request.system.join("\n\n"));
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| {
            json!({"type": "function", "name": tool.name, "description": tool.description,
                   "parameters": tool.parameters})
        })
        .collect();
    if request.hosted_search {
        tools.push(json!({"type": "web_search"}));
        body["include"]
            .as_array_mut()
            .expect("include is a list")
            .push(json!("web_search_call.action.sources"));
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!("auto");
    }
    if let Some(max) = request.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if let Some(key) = &request.cache_key {
        body["prompt_cache_key"] = json!(key);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = request.top_p {
        body["top_p"] = json!(p);
    }
    body
}

/// One message as the input items it is made of, in order.
fn push_items(message: &ModelMessage, input: &mut Vec<Value>) {
    match message {
        ModelMessage::User(content) => {
            let parts: Vec<Value> = content.iter().map(user_part).collect();
            input.push(json!({"type": "message", "role": "user", "content": parts}));
        }
        ModelMessage::Assistant(content) => {
            for part in content {
                match part {
                    AssistantContent::Text(text) if text.is_empty() => {}
                    AssistantContent::Text(text) => input.push(json!({
                        "type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]})),
                    // Only the Responses API's own items go back; other providers' reasoning
                    // cannot be read by it.
                    AssistantContent::Reasoning {
                        text,
                        item: Some(item),
                        ..
                    } => {
                        let summary: Vec<Value> = if text.is_empty() {
                            Vec::new()
                        } else {
                            vec![json!({"type": "summary_text", "text": text})]
                        };
                        let mut value =
                            json!({"type": "reasoning", "id": item.id, "summary": summary});
                        if let Some(encrypted) = &item.encrypted {
                            value["encrypted_content"] = json!(encrypted);
                        }
                        input.push(value);
                    }
                    AssistantContent::Reasoning { .. } => {}
                    AssistantContent::ToolCall {
                        id,
                        name,
                        input: args,
                    } => input.push(json!({
                        "type": "function_call", "call_id": id, "name": name,
                        "arguments": args.to_string()})),
                }
            }
        }
        ModelMessage::ToolResult {
            call_id,
            output,
            images,
            ..
        } => {
            input.push(json!({"type": "function_call_output", "call_id": call_id,
                              "output": output}));
            // Images a tool returned follow as the person's message, as over Chat Completions.
            if !images.is_empty() {
                let mut parts = vec![json!({"type": "input_text",
                    "text": format!("Images returned by tool call {call_id}:")})];
                parts.extend(images.iter().map(|(mime, data)| {
                    json!({"type": "input_image", "image_url": format!("data:{mime};base64,{data}")})
                }));
                input.push(json!({"type": "message", "role": "user", "content": parts}));
            }
        }
    }
}

fn user_part(content: &UserContent) -> Value {
    match content {
        UserContent::Text(text) => json!({"type": "input_text", "text": text}),
        UserContent::Image { mime, data_base64 } => json!({
            "type": "input_image", "image_url": format!("data:{mime};base64,{data_base64}")}),
    }
}

/// A function call whose arguments are still streaming.
struct PendingCall {
    item_id: String,
    call_id: String,
    name: String,
    arguments: String,
}

pub struct Parser {
    provider: String,
    calls: Vec<PendingCall>,
    /// Calls completed in this answer.
    called: bool,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
}

impl Parser {
    fn new(provider: String) -> Self {
        Self {
            provider,
            calls: Vec::new(),
            called: false,
            usage: None,
            finish: None,
        }
    }

    fn failure(&self, detail: String) -> ProviderError {
        ProviderError::Stream {
            provider: self.provider.clone(),
            detail,
        }
    }

    /// An output item began: a function call or a web search is shown at once.
    fn item_added(&mut self, item: &Value, out: &mut VecDeque<StreamEvent>) {
        if item["type"] == "web_search_call" {
            out.push_back(StreamEvent::SearchStarted {
                id: text(item, "id"),
            });
        }
        if item["type"] == "function_call" {
            let call = PendingCall {
                item_id: text(item, "id"),
                call_id: text(item, "call_id"),
                name: text(item, "name"),
                arguments: text(item, "arguments"),
            };
            out.push_back(StreamEvent::ToolCallStart {
                id: call.call_id.clone(),
                name: call.name.clone(),
            });
            self.calls.push(call);
        }
    }

    /// An output item is complete: a function call with all its arguments, or a reasoning
    /// item with its encrypted content.
    fn item_done(&mut self, item: &Value, out: &mut VecDeque<StreamEvent>) {
        match item["type"].as_str() {
            Some("function_call") => {
                let id = text(item, "id");
                let pending = self
                    .calls
                    .iter()
                    .position(|c| c.item_id == id)
                    .map(|i| self.calls.remove(i));
                let arguments = item["arguments"]
                    .as_str()
                    .map(str::to_owned)
                    .or_else(|| pending.as_ref().map(|c| c.arguments.clone()))
                    .unwrap_or_default();
                if pending.is_none() {
                    out.push_back(StreamEvent::ToolCallStart {
                        id: text(item, "call_id"),
                        name: text(item, "name"),
                    });
                }
                out.push_back(StreamEvent::ToolCall {
                    id: text(item, "call_id"),
                    name: text(item, "name"),
                    arguments,
                });
                self.called = true;
            }
            Some("web_search_call") => out.push_back(search_done(item)),
            Some("reasoning") => out.push_back(StreamEvent::ReasoningItem(ReasoningItem {
                id: text(item, "id"),
                encrypted: item["encrypted_content"].as_str().map(str::to_owned),
            })),
            _ => {}
        }
    }

    /// The response ended: its usage and why it stopped.
    fn ended(&mut self, response: &Value) {
        if let Some(u) = response.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage(u));
        }
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        self.finish = Some(match reason {
            Some("max_output_tokens") => FinishReason::Length,
            Some("content_filter") => FinishReason::ContentFilter,
            _ if self.called => FinishReason::ToolCalls,
            _ => FinishReason::Stop,
        });
    }
}

/// A finished `web_search_call` item: its action in words and the pages it read.
fn search_done(item: &Value) -> StreamEvent {
    let action = &item["action"];
    let query = match action["type"].as_str() {
        Some("open_page") => format!("open {}", text(action, "url")),
        Some("find") => format!(
            "find \"{}\" in {}",
            text(action, "pattern"),
            text(action, "url")
        ),
        _ => match action["queries"].as_array().filter(|q| q.len() > 1) {
            Some(queries) => queries
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; "),
            None => text(action, "query"),
        },
    };
    let sources = action["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["url"].as_str())
        .map(|url| Source {
            url: url.to_owned(),
            title: None,
        })
        .collect();
    let error = (item["status"] == "failed").then(|| "the search failed".to_owned());
    StreamEvent::SearchDone {
        id: text(item, "id"),
        query,
        sources,
        error,
    }
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

fn usage(value: &Value) -> Usage {
    let n = |pointer: &str| value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("/input_tokens_details/cached_tokens");
    Usage {
        input: n("/input_tokens").saturating_sub(cached),
        output: n("/output_tokens"),
        reasoning: n("/output_tokens_details/reasoning_tokens"),
        cache_read: cached,
        cache_write: 0,
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
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(Flow::More);
        }
        let value: Value = serde_json::from_str(data).map_err(|e| {
            self.failure(format!(
                "unreadable event ({e}): {}",
                data.chars().take(200).collect::<String>()
            ))
        })?;
        let delta = || value["delta"].as_str().unwrap_or_default().to_owned();
        match value["type"].as_str().unwrap_or(&event.event) {
            "response.output_text.delta" => out.push_back(StreamEvent::TextDelta(delta())),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push_back(StreamEvent::ReasoningDelta(delta()))
            }
            // Summary parts after the first are paragraphs of the same thought.
            "response.reasoning_summary_part.added"
                if value["summary_index"].as_u64().is_some_and(|i| i > 0) =>
            {
                out.push_back(StreamEvent::ReasoningDelta("\n\n".into()))
            }
            "response.output_item.added" => self.item_added(&value["item"], out),
            "response.function_call_arguments.delta" => {
                let id = text(&value, "item_id");
                if let Some(call) = self.calls.iter_mut().find(|c| c.item_id == id) {
                    call.arguments.push_str(&delta());
                }
            }
            "response.output_item.done" => self.item_done(&value["item"], out),
            "response.output_text.annotation.added"
                if value["annotation"]["type"] == "url_citation" =>
            {
                let annotation = &value["annotation"];
                out.push_back(StreamEvent::Citation(Source {
                    url: text(annotation, "url"),
                    title: annotation["title"].as_str().map(str::to_owned),
                }));
            }
            "response.completed" | "response.incomplete" => {
                self.ended(&value["response"]);
                return Ok(Flow::Done);
            }
            "response.failed" => {
                let error = &value["response"]["error"];
                return Err(self.failure(http::error_message(&json!({"error": error}).to_string())));
            }
            "error" => {
                let error = value.get("error").unwrap_or(&value);
                return Err(self.failure(http::error_message(&json!({"error": error}).to_string())));
            }
            _ => {}
        }
        Ok(Flow::More)
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        let Some(finish) = self.finish.take() else {
            return Err(ProviderError::Broken {
                provider: self.provider.clone(),
                detail: "the stream ended before the response completed".into(),
            });
        };
        if let Some(usage) = self.usage.take() {
            out.push_back(StreamEvent::Usage(usage));
        }
        out.push_back(StreamEvent::Finish(finish));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
