//! A minimal OpenAI-compatible model on 127.0.0.1 that streams one token at a time, paced,
//! and notes the instant each token left it, so the driver can time the token's way through
//! Tandem to the editor.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

pub struct PacedModel {
    pub base_url: String,
    /// When token i of the latest answer was written to the socket.
    pub sent: Arc<Mutex<Vec<Instant>>>,
}

impl PacedModel {
    /// Answers every request with `tokens` tokens ("w0 ", "w1 ", …), one every `gap`.
    pub fn start(tokens: usize, gap: Duration) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = sent.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                answer(stream, tokens, gap, &log);
            }
        });
        Self { base_url, sent }
    }
}

/// Reads one HTTP request from `stream` (no delay on its answers); its body, or None if the
/// connection closed first.
pub fn read_request(stream: &TcpStream) -> Option<Vec<u8>> {
    stream.set_nodelay(true).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Some(body)
}

fn answer(mut stream: TcpStream, tokens: usize, gap: Duration, sent: &Mutex<Vec<Instant>>) {
    if read_request(&stream).is_none() {
        return;
    }
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                transfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    let mut chunk = |data: String| {
        let event = format!("data: {data}\n\n");
        let framed = format!("{:x}\r\n{event}\r\n", event.len());
        stream.write_all(framed.as_bytes()).is_ok()
    };
    let delta = |content: &str| {
        json!({"id": "c", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": {"content": content}}]})
        .to_string()
    };
    chunk(delta(""));
    let mut times = Vec::with_capacity(tokens);
    for i in 0..tokens {
        std::thread::sleep(gap);
        times.push(Instant::now());
        if !chunk(delta(&format!("w{i} "))) {
            return;
        }
    }
    *sent.lock().unwrap() = times;
    chunk(
        json!({"id": "c", "object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        .to_string(),
    );
    chunk(json!({"id": "c", "object": "chat.completion.chunk", "choices": [],
                 "usage": {"prompt_tokens": 10, "completion_tokens": tokens, "total_tokens": 10 + tokens}})
    .to_string());
    chunk("[DONE]".into());
    let _ = stream.write_all(b"0\r\n\r\n");
}
