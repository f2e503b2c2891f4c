//! A mock model provider on 127.0.0.1: it answers OpenAI Chat Completions and Anthropic
//! Messages requests with scripted responses in the providers' real SSE byte formats.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};

/// One scripted HTTP answer.
#[derive(Clone, Debug)]
pub struct MockResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Body pieces, each sent after its delay.
    pub chunks: Vec<(Duration, String)>,
    /// Keep the connection open after the last chunk instead of ending the body.
    pub hang: bool,
    /// Hold the body before this chunk until the gate opens (ordering without timing).
    pub gate: Option<(usize, Gate)>,
}

/// A gate a test opens once something has happened; responses held at it then go on.
#[derive(Clone, Debug)]
pub struct Gate(std::sync::Arc<tokio::sync::Semaphore>);

impl Default for Gate {
    fn default() -> Self {
        Self(std::sync::Arc::new(tokio::sync::Semaphore::new(0)))
    }
}

impl Gate {
    pub fn open(&self) {
        self.0.add_permits(1 << 20);
    }

    async fn pass(&self) {
        let _ = self.0.acquire().await;
    }
}

impl MockResponse {
    pub fn status(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            chunks: vec![(Duration::ZERO, body.to_owned())],
            hang: false,
            gate: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// An SSE body from `data:` payloads (with optional `event:` names).
    pub fn sse(events: Vec<(Option<&str>, String)>) -> Self {
        let chunks = events
            .into_iter()
            .map(|(name, data)| {
                let text = match name {
                    Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                    None => format!("data: {data}\n\n"),
                };
                (Duration::ZERO, text)
            })
            .collect();
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks,
            hang: false,
            gate: None,
        }
    }

    /// Waits `delay` before every chunk.
    pub fn paced(mut self, delay: Duration) -> Self {
        for chunk in &mut self.chunks {
            chunk.0 = delay;
        }
        self
    }

    /// Holds the body before chunk `at` until `gate` opens.
    pub fn gated(mut self, at: usize, gate: &Gate) -> Self {
        self.gate = Some((at, gate.clone()));
        self
    }

    /// Drops the last `n` chunks and keeps the connection open instead.
    pub fn hang_after(mut self, keep: usize) -> Self {
        self.chunks.truncate(keep);
        self.hang = true;
        self
    }
}

/// A character the mock sends as the byte 0xFF, which is never valid UTF-8: put it in a
/// response to test how invalid text on the wire is read.
pub const INVALID_BYTE: char = '\u{E000}';

fn with_invalid_bytes(text: String) -> Vec<u8> {
    if !text.contains(INVALID_BYTE) {
        return text.into_bytes();
    }
    let mut bytes = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c == INVALID_BYTE {
            bytes.push(0xFF);
        } else {
            bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
    bytes
}

/// OpenAI: text streamed in `pieces`, then `finish_reason` and usage.
pub fn openai_text(pieces: &[&str], finish: &str) -> MockResponse {
    let mut events = vec![(
        None,
        json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}).to_string(),
    )];
    for piece in pieces {
        events.push((None, json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":piece}}]}).to_string()));
    }
    events.push((None, json!({"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":finish}]}).to_string()));
    events.push((None, json!({"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":8,"total_tokens":128,"prompt_tokens_details":{"cached_tokens":20}}}).to_string()));
    events.push((None, "[DONE]".into()));
    MockResponse::sse(events)
}

/// An OpenAI answer whose usage chunk reports `prompt` input and `completion` output tokens.
pub fn with_usage(mut response: MockResponse, prompt: u64, completion: u64) -> MockResponse {
    let usage = json!({"choices": [], "usage": {"prompt_tokens": prompt,
        "completion_tokens": completion, "total_tokens": prompt + completion}});
    let line = format!("data: {usage}\n\n");
    match response
        .chunks
        .iter()
        .position(|c| c.1.contains("\"usage\""))
    {
        Some(at) => response.chunks[at].1 = line,
        None => {
            let done = response.chunks.len().saturating_sub(1);
            response.chunks.insert(done, (Duration::ZERO, line));
        }
    }
    response
}

/// OpenAI: one tool call whose arguments arrive in `arg_pieces`.
pub fn openai_tool_call(id: &str, name: &str, arg_pieces: &[&str]) -> MockResponse {
    let mut events = vec![(
        None,
        json!({"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":id,"type":"function","function":{"name":name,"arguments":""}}]}}]}).to_string(),
    )];
    for piece in arg_pieces {
        events.push((None, json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":piece}}]}}]}).to_string()));
    }
    events.push((
        None,
        json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}).to_string(),
    ));
    events.push((
        None,
        json!({"choices":[],"usage":{"prompt_tokens":90,"completion_tokens":12}}).to_string(),
    ));
    events.push((None, "[DONE]".into()));
    MockResponse::sse(events)
}

/// Anthropic: a thinking block, then text in `pieces`.
pub fn anthropic_text(thinking: &str, pieces: &[&str], stop: &str) -> MockResponse {
    let mut events = vec![
        (Some("message_start"), json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"usage":{"input_tokens":200,"cache_read_input_tokens":50,"output_tokens":1}}}).to_string()),
        (Some("content_block_start"), json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}).to_string()),
        (Some("content_block_delta"), json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":thinking}}).to_string()),
        (Some("content_block_delta"), json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig-abc"}}).to_string()),
        (Some("content_block_stop"), json!({"type":"content_block_stop","index":0}).to_string()),
        (Some("content_block_start"), json!({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}).to_string()),
        (Some("ping"), json!({"type":"ping"}).to_string()),
    ];
    for piece in pieces {
        events.push((Some("content_block_delta"), json!({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":piece}}).to_string()));
    }
    events.push((
        Some("content_block_stop"),
        json!({"type":"content_block_stop","index":1}).to_string(),
    ));
    events.push((Some("message_delta"), json!({"type":"message_delta","delta":{"stop_reason":stop,"stop_sequence":null},"usage":{"output_tokens":15}}).to_string()));
    events.push((
        Some("message_stop"),
        json!({"type":"message_stop"}).to_string(),
    ));
    MockResponse::sse(events)
}

/// Anthropic: a `tool_use` block with streamed JSON input.
pub fn anthropic_tool_use(id: &str, name: &str, json_pieces: &[&str]) -> MockResponse {
    let mut events = vec![
        (Some("message_start"), json!({"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}).to_string()),
        (Some("content_block_start"), json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":id,"name":name,"input":{}}}).to_string()),
    ];
    for piece in json_pieces {
        events.push((Some("content_block_delta"), json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":piece}}).to_string()));
    }
    events.push((
        Some("content_block_stop"),
        json!({"type":"content_block_stop","index":0}).to_string(),
    ));
    events.push((Some("message_delta"), json!({"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}).to_string()));
    events.push((
        Some("message_stop"),
        json!({"type":"message_stop"}).to_string(),
    ));
    MockResponse::sse(events)
}

#[derive(Default)]
struct Shared {
    responses: Mutex<VecDeque<MockResponse>>,
    /// Answers kept for requests whose first user message contains the text.
    routed: Mutex<Vec<(String, MockResponse)>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// Title requests (Tandem's background `title` agent), answered apart from the queue.
    title_requests: Mutex<Vec<RecordedRequest>>,
    /// What the title agent is told; `None` answers 500.
    title: Mutex<Option<String>>,
}

/// The system prompt of a request (OpenAI or Anthropic shape).
fn system_text(body: &Value) -> String {
    if let Some(instructions) = body["instructions"].as_str() {
        return instructions.to_owned();
    }
    if let Some(system) = body["system"].as_array() {
        return system.iter().filter_map(|b| b["text"].as_str()).collect();
    }
    body["messages"][0]["content"]
        .as_str()
        .filter(|_| body["messages"][0]["role"] == "system")
        .unwrap_or_default()
        .to_owned()
}

/// Tandem's title agent asks with this in its system prompt.
fn is_title_request(body: &Value) -> bool {
    system_text(body).starts_with("You name conversations")
}

/// The text of a request's first user message (OpenAI or Anthropic shape).
fn first_user_text(body: &Value) -> String {
    let Some(messages) = body["messages"].as_array().or(body["input"].as_array()) else {
        return String::new();
    };
    let Some(user) = messages.iter().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &user["content"] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A request the mock received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub path: String,
    /// The query string, if any (`api-version=…`).
    pub query: String,
    pub headers: HeaderMap,
    pub body: Value,
    pub at: std::time::Instant,
}

/// The running mock; it stops with the test's runtime.
pub struct MockLlm {
    pub url: String,
    shared: Arc<Shared>,
}

impl MockLlm {
    pub async fn start() -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .route(
                "/openai/deployments/{deployment}/chat/completions",
                post(answer),
            )
            .route("/v1/messages", post(answer))
            .route("/v1/responses", post(answer))
            .route("/v1/models", axum::routing::get(models))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { url, shared }
    }

    /// Keeps `response` for the next request whose first user message contains `needle`
    /// (a subagent's prompt), ahead of the queue.
    pub fn push_for(&self, needle: &str, response: MockResponse) {
        self.shared
            .routed
            .lock()
            .unwrap()
            .push((needle.to_owned(), response));
    }

    /// Queues the answer to the next request.
    pub fn push(&self, response: MockResponse) {
        self.shared.responses.lock().unwrap().push_back(response);
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The background title agent's requests (kept out of `requests`).
    pub fn title_requests(&self) -> Vec<RecordedRequest> {
        self.shared.title_requests.lock().unwrap().clone()
    }

    /// What the title agent answers (`None`: HTTP 500).
    pub fn set_title(&self, title: Option<&str>) {
        *self.shared.title.lock().unwrap() = title.map(str::to_owned);
    }
}

/// The model listing `tandem doctor` asks for: refused for the key `sk-rejected`.
async fn models(headers: HeaderMap) -> Response {
    let key = headers
        .get("authorization")
        .or_else(|| headers.get("x-api-key"))
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let (status, body) = if key.ends_with("sk-rejected") {
        (StatusCode::UNAUTHORIZED, r#"{"error": "invalid key"}"#)
    } else {
        (
            StatusCode::OK,
            r#"{"data": [{"id": "test-model"}, {"id": "other"}]}"#,
        )
    };
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(body))
        .unwrap()
}

async fn answer(
    State(shared): State<Arc<Shared>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let first_user = first_user_text(&body);
    if is_title_request(&body) {
        let anthropic = uri.path().ends_with("/messages");
        let responses = uri.path().ends_with("/responses");
        shared.title_requests.lock().unwrap().push(RecordedRequest {
            path: uri.path().to_owned(),
            query: uri.query().unwrap_or_default().to_owned(),
            headers,
            body,
            at: std::time::Instant::now(),
        });
        let title = shared.title.lock().unwrap().clone();
        let response = match (title, anthropic) {
            (None, _) => MockResponse::status(500, r#"{"error":{"message":"no title"}}"#),
            (Some(title), _) if responses => responses_text(None, &[&title]),
            (Some(title), true) => anthropic_text("", &[&title], "end_turn"),
            (Some(title), false) => openai_text(&[&title], "stop"),
        };
        let mut builder =
            Response::builder().status(StatusCode::from_u16(response.status).unwrap());
        for (name, value) in &response.headers {
            builder = builder.header(name, value);
        }
        let body: String = response.chunks.into_iter().map(|(_, text)| text).collect();
        return builder.body(Body::from(body)).unwrap();
    }
    let task_id = last_task_id(&body.to_string());
    shared.requests.lock().unwrap().push(RecordedRequest {
        path: uri.path().to_owned(),
        query: uri.query().unwrap_or_default().to_owned(),
        headers,
        body,
        at: std::time::Instant::now(),
    });
    let routed = {
        let mut routed = shared.routed.lock().unwrap();
        routed
            .iter()
            .position(|(needle, _)| first_user.contains(needle.as_str()))
            .map(|i| routed.remove(i).1)
    };
    let next = routed.or_else(|| shared.responses.lock().unwrap().pop_front());
    let response = next.unwrap_or_else(|| {
        MockResponse::status(
            500,
            r#"{"error":{"message":"the mock has no response queued"}}"#,
        )
    });
    let mut builder = Response::builder().status(StatusCode::from_u16(response.status).unwrap());
    for (name, value) in &response.headers {
        builder = builder.header(name, value);
    }
    let hang = response.hang;
    let gate = response.gate;
    let filled = response
        .chunks
        .into_iter()
        .map(move |(delay, text)| match &task_id {
            Some(id) => (delay, text.replace(TASK_ID_SLOT, id)),
            None => (delay, text),
        });
    let numbered = filled.enumerate();
    let chunks = futures::stream::iter(numbered).then(move |(index, (delay, text))| {
        let gate = gate.clone();
        async move {
            if let Some((at, gate)) = gate
                && at == index
            {
                gate.pass().await;
            }
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Ok::<_, Infallible>(Bytes::from(with_invalid_bytes(text)))
        }
    });
    let tail = futures::stream::once(async move {
        if hang {
            std::future::pending::<()>().await;
        }
        Ok::<_, Infallible>(Bytes::new())
    });
    use futures::StreamExt as _;
    builder.body(Body::from_stream(chunks.chain(tail))).unwrap()
}

use futures::StreamExt as _;

/// Written in a scripted answer, it becomes the last `task_id: …` the request's history holds
/// (a subagent's id, which a script cannot know ahead).
pub const TASK_ID_SLOT: &str = "@@task_id@@";

/// The last `task_id: <id>` in a request's text.
fn last_task_id(text: &str) -> Option<String> {
    let at = text.rfind("task_id: ")? + "task_id: ".len();
    let id: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// OpenAI Responses: a reasoning item (`(summary, encrypted_content)`) when given, then the
/// text in `pieces`, then `response.completed` with usage (120 input, 20 cached, 8 output).
pub fn responses_text(reasoning: Option<(&str, &str)>, pieces: &[&str]) -> MockResponse {
    let mut events = responses_reasoning(reasoning, 0);
    let at = events.len();
    events.push(responses_event(
        json!({"type": "response.output_item.added", "output_index": at,
        "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
    ));
    for piece in pieces {
        events.push(responses_event(
            json!({"type": "response.output_text.delta",
            "item_id": "msg_1", "output_index": at, "delta": piece}),
        ));
    }
    events.push(responses_completed(8));
    MockResponse::sse(events)
}

/// OpenAI Responses: a reasoning item when given, then one function call `name(arguments)`.
pub fn responses_tool_call(
    reasoning: Option<(&str, &str)>,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> MockResponse {
    let mut events = responses_reasoning(reasoning, 0);
    let item = json!({"type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
                      "name": name, "arguments": ""});
    events.push(responses_event(
        json!({"type": "response.output_item.added", "item": item}),
    ));
    events.push(responses_event(
        json!({"type": "response.function_call_arguments.delta",
        "item_id": format!("fc_{call_id}"), "delta": arguments}),
    ));
    let mut done = item;
    done["arguments"] = json!(arguments);
    events.push(responses_event(
        json!({"type": "response.output_item.done", "item": done}),
    ));
    events.push(responses_completed(8));
    MockResponse::sse(events)
}

fn responses_event(value: Value) -> (Option<&'static str>, String) {
    let name: &'static str = match value["type"].as_str().unwrap() {
        "response.output_item.added" => "response.output_item.added",
        "response.output_item.done" => "response.output_item.done",
        "response.output_text.delta" => "response.output_text.delta",
        "response.reasoning_summary_text.delta" => "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta" => "response.function_call_arguments.delta",
        "response.completed" => "response.completed",
        _ => "message",
    };
    (Some(name), value.to_string())
}

fn responses_reasoning(
    reasoning: Option<(&str, &str)>,
    index: usize,
) -> Vec<(Option<&'static str>, String)> {
    let Some((summary, encrypted)) = reasoning else {
        return Vec::new();
    };
    let id = format!("rs_{encrypted}");
    vec![
        responses_event(
            json!({"type": "response.output_item.added", "output_index": index,
            "item": {"type": "reasoning", "id": id, "summary": []}}),
        ),
        responses_event(
            json!({"type": "response.reasoning_summary_text.delta", "item_id": id,
            "summary_index": 0, "delta": summary}),
        ),
        responses_event(
            json!({"type": "response.output_item.done", "output_index": index,
            "item": {"type": "reasoning", "id": id,
                     "summary": [{"type": "summary_text", "text": summary}],
                     "encrypted_content": encrypted}}),
        ),
    ]
}

fn responses_completed(output: u64) -> (Option<&'static str>, String) {
    responses_event(
        json!({"type": "response.completed", "response": {"status": "completed",
        "usage": {"input_tokens": 120, "input_tokens_details": {"cached_tokens": 20},
                  "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 3}}}}),
    )
}

/// OpenAI: several complete tool calls in one answer (`(id, name, arguments)`).
pub fn openai_tool_calls(calls: &[(&str, &str, &str)]) -> MockResponse {
    let mut events = Vec::new();
    for (index, (id, name, args)) in calls.iter().enumerate() {
        events.push((None, json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":index,"id":id,"type":"function","function":{"name":name,"arguments":args}}]}}]}).to_string()));
    }
    events.push((
        None,
        json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}).to_string(),
    ));
    events.push((None, "[DONE]".into()));
    MockResponse::sse(events)
}
