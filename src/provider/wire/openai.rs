//! OpenAI Chat Completions over SSE: request building, incremental `tool_calls` arguments,
//! reasoning deltas (`reasoning_content`/`reasoning`) and usage from the final chunk.

use std::collections::{BTreeMap, VecDeque};

use reqwest::RequestBuilder;
use serde_json::{Value, json};

use super::Wire;
use crate::message::{FinishReason, Usage};
use crate::provider::http;
use crate::provider::sse::{Event, Flow, SseParser};
use crate::provider::{
    AssistantContent, ModelMessage, ModelRequest, ProviderError, StreamEvent, UserContent,
};

/// OpenAI's Chat Completions, which most OpenAI-compatible servers speak.
pub struct ChatCompletions;

impl Wire for ChatCompletions {
    const PATH: &'static str = "/chat/completions";
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
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system.join("\n\n")}));
    }
    for message in &request.messages {
        messages.push(message_json(message));
        // Chat Completions tool messages carry text only: images follow as a user message.
        if let ModelMessage::ToolResult {
            call_id, images, ..
        } = message
            && !images.is_empty()
        {
            let mut parts = vec![
                json!({"type": "text", "text": format!("Images returned by tool call {call_id}:")}),
            ];
            parts.extend(images.iter().map(|(mime, data)| {
                json!({"type": "image_url", "image_url": {"url": format!("data:{mime};base64,{data}")}})
            }));
            messages.push(json!({"role": "user", "content": parts}));
        }
    }
    let mut body = json!({
        "model": request.model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name, "description": tool.description, "parameters": tool.parameters}})
            })
            .collect();
        // The default everywhere, but some local servers (llama-cpp-python) call tools only
        // when asked to.
        body["tool_choice"] = json!("auto");
    }
    if let Some(max) = request.max_output_tokens {
        body["max_tokens"] = json!(max);
    }
    // OpenAI caches every long prefix on its own; the key keeps a session's requests on the
    // same cache machines.
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

fn message_json(message: &ModelMessage) -> Value {
    match message {
        ModelMessage::User(content) => {
            if let [UserContent::Text(text)] = content.as_slice() {
                return json!({"role": "user", "content": text});
            }
            let parts: Vec<Value> = content
                .iter()
                .map(|c| match c {
                    UserContent::Text(text) => json!({"type": "text", "text": text}),
                    UserContent::Image { mime, data_base64 } => json!({
                        "type": "image_url",
                        "image_url": {"url": format!("data:{mime};base64,{data_base64}")}}),
                })
                .collect();
            json!({"role": "user", "content": parts})
        }
        ModelMessage::Assistant(content) => {
            let text: String = content
                .iter()
                .filter_map(|c| match c {
                    AssistantContent::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            let calls: Vec<Value> = content
                .iter()
                .filter_map(|c| match c {
                    AssistantContent::ToolCall { id, name, input } => Some(json!({
                        "id": id, "type": "function",
                        "function": {"name": name, "arguments": input.to_string()}})),
                    _ => None,
                })
                .collect();
            let mut value = json!({"role": "assistant",
                "content": text});
            if !calls.is_empty() {
                value["tool_calls"] = Value::Array(calls);
            }
            value
        }
        ModelMessage::ToolResult {
            call_id, output, ..
        } => json!({"role": "tool", "tool_call_id": call_id, "content": output}),
    }
}

#[derive(Default)]
struct PendingCall {
    id: String,
    name: String,
    arguments: String,
    started: bool,
}

pub struct Parser {
    provider: String,
    calls: BTreeMap<u64, PendingCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    /// `[DONE]` arrived.
    done: bool,
    /// At least one chunk carried a choice.
    answered: bool,
}

impl Parser {
    fn new(provider: String) -> Self {
        Self {
            provider,
            calls: BTreeMap::new(),
            finish: None,
            usage: None,
            done: false,
            answered: false,
        }
    }

    fn flush_calls(&mut self, out: &mut VecDeque<StreamEvent>) {
        for (_, call) in std::mem::take(&mut self.calls) {
            if !call.started {
                out.push_back(StreamEvent::ToolCallStart {
                    id: call.id.clone(),
                    name: call.name.clone(),
                });
            }
            out.push_back(StreamEvent::ToolCall {
                id: call.id,
                name: call.name,
                arguments: call.arguments,
            });
        }
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        _ => FinishReason::Stop,
    }
}

fn usage(value: &Value) -> Usage {
    let n = |pointer: &str| value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("/prompt_tokens_details/cached_tokens");
    Usage {
        input: n("/prompt_tokens").saturating_sub(cached),
        output: n("/completion_tokens"),
        reasoning: n("/completion_tokens_details/reasoning_tokens"),
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
        if data == "[DONE]" {
            self.done = true;
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::More);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| ProviderError::Stream {
            provider: self.provider.clone(),
            detail: format!(
                "unreadable chunk ({e}): {}",
                data.chars().take(200).collect::<String>()
            ),
        })?;
        if let Some(error) = chunk.get("error") {
            return Err(ProviderError::Stream {
                provider: self.provider.clone(),
                detail: http::error_message(&json!({"error": error}).to_string()),
            });
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage(u));
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(Flow::More);
        };
        self.answered = true;
        if let Some(delta) = choice.get("delta") {
            for key in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta.get(key).and_then(Value::as_str)
                    && !text.is_empty()
                {
                    out.push_back(StreamEvent::ReasoningDelta(text.to_owned()));
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push_back(StreamEvent::TextDelta(text.to_owned()));
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let index = call.get("index").and_then(Value::as_u64).unwrap_or(0);
                let pending = self.calls.entry(index).or_default();
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    pending.id = id.to_owned();
                }
                if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                    pending.name.push_str(name);
                }
                if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                    pending.arguments.push_str(args);
                }
                if !pending.started && !pending.id.is_empty() && !pending.name.is_empty() {
                    pending.started = true;
                    out.push_back(StreamEvent::ToolCallStart {
                        id: pending.id.clone(),
                        name: pending.name.clone(),
                    });
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(finish_reason(reason));
            self.flush_calls(out);
        }
        Ok(Flow::More)
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        // A body that just stops (neither `[DONE]` nor a finish reason) is a broken
        // connection, and an answer without a single choice is no answer: never a silent
        // end of turn with half a reply.
        let broken = if !self.answered {
            Some("the response had no choices")
        } else if !self.done && self.finish.is_none() {
            Some("the stream ended before the model finished (no finish reason, no [DONE])")
        } else {
            None
        };
        if let Some(detail) = broken {
            return Err(ProviderError::Broken {
                provider: self.provider.clone(),
                detail: detail.into(),
            });
        }
        let had_calls = !self.calls.is_empty();
        self.flush_calls(out);
        if let Some(usage) = self.usage.take() {
            out.push_back(StreamEvent::Usage(usage));
        }
        let finish = self.finish.take().unwrap_or(if had_calls {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        });
        out.push_back(StreamEvent::Finish(finish));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(lines: &[&str]) -> Vec<StreamEvent> {
        let mut parser = Parser::new("openai".into());
        let mut out = VecDeque::new();
        for data in lines {
            let event = Event {
                data: (*data).into(),
                ..Default::default()
            };
            if parser.on_event(&event, &mut out).unwrap() == Flow::Done {
                break;
            }
        }
        parser.on_end(&mut out).unwrap();
        out.into_iter().collect()
    }

    #[test]
    fn incremental_tool_call_arguments_are_joined() {
        let events = feed(&[
            r#"{"choices":[{"delta":{"role":"assistant","content":"Hi"}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"list","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\".\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":40}}}"#,
            "[DONE]",
        ]);
        assert_eq!(
            events,
            [
                StreamEvent::TextDelta("Hi".into()),
                StreamEvent::ToolCallStart {
                    id: "call_1".into(),
                    name: "list".into()
                },
                StreamEvent::ToolCall {
                    id: "call_1".into(),
                    name: "list".into(),
                    arguments: r#"{"path":"."}"#.into()
                },
                StreamEvent::Usage(Usage {
                    input: 60,
                    output: 7,
                    reasoning: 0,
                    cache_read: 40,
                    cache_write: 0
                }),
                StreamEvent::Finish(FinishReason::ToolCalls),
            ]
        );
    }

    #[test]
    fn history_maps_to_chat_messages() {
        let request = ModelRequest {
            model: "m".into(),
            system: vec!["sys".into()].into(),
            messages: vec![
                ModelMessage::User(vec![UserContent::Text("hi".into())]),
                ModelMessage::Assistant(vec![AssistantContent::ToolCall {
                    id: "c1".into(),
                    name: "list".into(),
                    input: json!({}),
                }]),
                ModelMessage::ToolResult {
                    call_id: "c1".into(),
                    name: "list".into(),
                    output: "a\nb".into(),
                    is_error: false,
                    images: vec![],
                },
            ],
            ..Default::default()
        };
        let body = request_body(&request);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "list", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "a\nb"}
            ])
        );
    }
}
