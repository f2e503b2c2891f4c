//! A model on 127.0.0.1 for the context figures: it records every request (body and arrival
//! instant) and answers each with what a policy decides (a tool call or text, with the usage
//! to report), in the OpenAI or Anthropic SSE format.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wire {
    OpenAi,
    Anthropic,
    /// OpenAI's Responses API, each answer with an encrypted reasoning item.
    Responses,
}

/// What to answer: a tool call or text, and the input tokens to report.
pub enum Answer {
    Tool {
        name: String,
        input: Value,
        prompt_tokens: u64,
    },
    Text {
        text: String,
        prompt_tokens: u64,
    },
}

/// A request as the model received it.
pub struct Received {
    pub body: Value,
    pub at: Instant,
    /// When its answer was fully written.
    pub answered: Instant,
}

type Policy = dyn Fn(&Value) -> Answer + Send + Sync;

pub struct RecordingModel {
    pub base_url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl RecordingModel {
    pub fn start(wire: Wire, policy: impl Fn(&Value) -> Answer + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        let policy: Arc<Policy> = Arc::new(policy);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let (log, policy) = (log.clone(), policy.clone());
                std::thread::spawn(move || answer(stream, wire, &*policy, &log));
            }
        });
        Self { base_url, received }
    }

    /// When request `index` arrived and when its answer was written (waits for its record:
    /// the model notes a request just after answering it).
    pub fn timing(&self, index: usize) -> (Instant, Instant) {
        let start = Instant::now();
        loop {
            if let Some(r) = self.received.lock().unwrap().get(index) {
                return (r.at, r.answered);
            }
            assert!(
                start.elapsed().as_secs() < 10,
                "request {index} never reached the model"
            );
            std::thread::yield_now();
        }
    }

    pub fn count(&self) -> usize {
        self.received.lock().unwrap().len()
    }

    /// The bodies received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.body.clone())
            .collect()
    }
}

fn answer(mut stream: TcpStream, wire: Wire, policy: &Policy, log: &Mutex<Vec<Received>>) {
    let Some(body) = crate::mock_sse::read_request(&stream) else {
        return;
    };
    let at = Instant::now();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let events = match wire {
        Wire::OpenAi => openai(policy(&body)),
        Wire::Anthropic => anthropic(policy(&body)),
        Wire::Responses => responses(policy(&body)),
    };
    let mut out = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
    );
    for (name, data) in events {
        if let Some(name) = name {
            out.push_str(&format!("event: {name}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.shutdown(std::net::Shutdown::Both);
    log.lock().unwrap().push(Received {
        body,
        at,
        answered: Instant::now(),
    });
}

type Events = Vec<(Option<&'static str>, String)>;

fn openai(answer: Answer) -> Events {
    let (delta, finish, prompt) = match answer {
        Answer::Tool {
            name,
            input,
            prompt_tokens,
        } => (
            json!({"tool_calls": [{"index": 0, "id": format!("call_{}", tandem::id::ulid()),
                "type": "function", "function": {"name": name, "arguments": input.to_string()}}]}),
            "tool_calls",
            prompt_tokens,
        ),
        Answer::Text {
            text,
            prompt_tokens,
        } => (json!({"content": text}), "stop", prompt_tokens),
    };
    vec![
        (
            None,
            json!({"choices": [{"index": 0, "delta": delta}]}).to_string(),
        ),
        (
            None,
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}).to_string(),
        ),
        (
            None,
            json!({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": 10}})
                .to_string(),
        ),
        (None, "[DONE]".into()),
    ]
}

fn responses(answer: Answer) -> Events {
    let id = tandem::id::ulid();
    let reasoning = json!({"type": "reasoning", "id": format!("rs_{id}"), "summary": [],
                           "encrypted_content": format!("enc-{id}-{}", "x".repeat(400))});
    let (item, prompt) = match answer {
        Answer::Tool {
            name,
            input,
            prompt_tokens,
        } => (
            json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": format!("call_{id}"),
                   "name": name, "arguments": input.to_string()}),
            prompt_tokens,
        ),
        Answer::Text {
            text,
            prompt_tokens,
        } => (
            json!({"type": "message", "id": format!("msg_{id}"), "role": "assistant",
                   "content": [{"type": "output_text", "text": text}]}),
            prompt_tokens,
        ),
    };
    let mut events: Events = vec![(
        Some("response.output_item.done"),
        json!({"type": "response.output_item.done", "item": reasoning}).to_string(),
    )];
    if let Some(text) = item.pointer("/content/0/text") {
        events.push((
            Some("response.output_text.delta"),
            json!({"type": "response.output_text.delta", "delta": text}).to_string(),
        ));
    } else {
        events.push((
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "item": item}).to_string(),
        ));
    }
    events.push((
        Some("response.completed"),
        json!({"type": "response.completed", "response": {"usage": {"input_tokens": prompt,
            "output_tokens": 10}}})
        .to_string(),
    ));
    events
}

fn anthropic(answer: Answer) -> Events {
    let (block, delta, stop, prompt) = match answer {
        Answer::Tool {
            name,
            input,
            prompt_tokens,
        } => (
            json!({"type": "tool_use", "id": format!("toolu_{}", tandem::id::ulid()), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
            prompt_tokens,
        ),
        Answer::Text {
            text,
            prompt_tokens,
        } => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
            prompt_tokens,
        ),
    };
    vec![
        (Some("message_start"), json!({"type": "message_start", "message": {"usage": {"input_tokens": prompt, "output_tokens": 1}}}).to_string()),
        (Some("content_block_start"), json!({"type": "content_block_start", "index": 0, "content_block": block}).to_string()),
        (Some("content_block_delta"), json!({"type": "content_block_delta", "index": 0, "delta": delta}).to_string()),
        (Some("content_block_stop"), json!({"type": "content_block_stop", "index": 0}).to_string()),
        (Some("message_delta"), json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 10}}).to_string()),
        (Some("message_stop"), json!({"type": "message_stop"}).to_string()),
    ]
}
