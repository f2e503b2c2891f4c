//! A faulty model server, fault by fault: a stream that stalls, one that stops without a
//! finish, an answer with no choices, invalid UTF-8, no usage, and what local servers need
//! (`tool_choice`, empty content). Each ends in an answer the editor can show, never a silent
//! `end_turn` with half a reply or a wait of many minutes.

use std::time::{Duration, Instant};

use crate::support::mock_llm::{INVALID_BYTE, MockResponse, openai_text};
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

/// An agent whose provider gives up on a silent stream after 300 ms and never retries.
async fn start() -> (MockLlm, TestEnv, crate::support::AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["options"]["chunkTimeout"] = json!(300);
    config["provider"]["mock"]["options"]["maxRetries"] = json!(0);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

fn chunk(delta: Value) -> (Option<&'static str>, String) {
    (
        None,
        json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
            .to_string(),
    )
}

#[tokio::test]
async fn a_stream_that_stalls_fails_after_chunk_timeout_keeping_what_came() {
    let (mock, env, mut agent, session) = start().await;
    let pieces: Vec<String> = (0..10).map(|i| format!("part{i} ")).collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    // Four text chunks, then silence with the connection open.
    mock.push(openai_text(&pieces, "stop").hang_after(5));
    let asked = Instant::now();
    let answer = agent.prompt(&session, "talk").await;
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stalled"), "{answer}");
    assert!(message.contains("chunkTimeout"), "{answer}");
    assert_eq!(agent.agent_text(), "part0 part1 part2 part3 ");
    drop(env);
}

#[tokio::test]
async fn a_stream_that_stops_without_a_finish_is_an_error_not_an_end_of_turn() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(MockResponse::sse(vec![
        chunk(json!({"role": "assistant", "content": "Half an "})),
        chunk(json!({"content": "answer"})),
    ]));
    let answer = agent.prompt(&session, "go").await;
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("the stream ended before the model finished"),
        "{answer}"
    );
    assert_eq!(agent.agent_text(), "Half an answer");

    mock.push(MockResponse::sse(vec![
        (
            None,
            json!({"id": "c1", "object": "chat.completion.chunk", "choices": []}).to_string(),
        ),
        (None, "[DONE]".into()),
    ]));
    let answer = agent.prompt(&session, "again").await;
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("the response had no choices"), "{answer}");
}

#[tokio::test]
async fn invalid_utf8_becomes_a_replacement_character_and_the_stream_goes_on() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(openai_text(
        &["caf", &format!("é {INVALID_BYTE} ok"), " and more"],
        "stop",
    ));
    let answer = agent.prompt(&session, "go").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert_eq!(agent.agent_text(), "café \u{FFFD} ok and more");
}

#[tokio::test]
async fn usage_is_estimated_when_the_server_reports_none() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(MockResponse::sse(vec![
        chunk(json!({"role": "assistant", "content": "An answer of some forty characters long."})),
        (
            None,
            json!({"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                .to_string(),
        ),
        (None, "[DONE]".into()),
    ]));
    let answer = agent.prompt(&session, "go").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let usage = agent.updates_of("usage_update");
    let used = usage.last().unwrap()["used"].as_u64().unwrap();
    // The system prompt and tools alone are thousands of characters; the answer is ten tokens.
    assert!(used > 100, "{usage:?}");
}

#[tokio::test]
async fn local_servers_get_tool_choice_auto_and_an_empty_string_for_tool_only_messages() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(crate::support::mock_llm::openai_tool_call(
        "c1",
        "list",
        &[r#"{"path": "."}"#],
    ));
    mock.push(openai_text(&["Listed."], "stop"));
    let answer = agent.prompt(&session, "list").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let requests = mock.requests();
    assert_eq!(requests[0].body["tool_choice"], "auto");
    let assistant = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap()
        .clone();
    assert_eq!(assistant["content"], "", "{assistant}");
}

#[tokio::test]
async fn a_hung_server_is_given_up_on_within_the_total_timeout() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&url, "openai");
    config["provider"]["mock"]["options"]["timeout"] = json!(10_000);
    config["provider"]["mock"]["options"]["maxRetries"] = json!(4);
    config["provider"]["mock"]["options"]["totalTimeout"] = json!(800);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let asked = Instant::now();
    let answer = agent.prompt(&session, "hello?").await;
    let took = asked.elapsed();
    assert!(took < Duration::from_secs(3), "took {took:?}");
    assert!(answer.get("error").is_some(), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no response headers within"), "{message}");
}

#[tokio::test]
async fn a_server_that_sends_no_headers_is_a_stall_retried_then_a_clear_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            held.push(socket);
        }
    });
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&url, "openai");
    // The request timeout is long; the stall limit decides.
    config["provider"]["mock"]["options"]["timeout"] = json!(600_000);
    config["provider"]["mock"]["options"]["chunkTimeout"] = json!(300);
    config["provider"]["mock"]["options"]["maxRetries"] = json!(1);
    config["provider"]["mock"]["options"]["retryDelay"] = json!(10);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let answer = agent.prompt(&session, "hello?").await;
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("no response headers within 0.3 s (after 2 attempts)"),
        "{answer}"
    );
    // Two attempts for the prompt (a title request may come to the same server too).
    assert!(accepted.load(std::sync::atomic::Ordering::SeqCst) >= 2);
    // The retry was told to the person as a line of the answer.
    assert!(
        agent.agent_text().contains("Trying again"),
        "{}",
        agent.agent_text()
    );
}

#[tokio::test]
async fn hostile_retry_after_values_neither_panic_nor_stop_the_session() {
    let (mock, _env, mut agent, session) = start_retrying().await;
    for value in [
        "inf",
        "1e400",
        "-3",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "garbage",
    ] {
        for name in ["retry-after", "retry-after-ms"] {
            mock.push(MockResponse::status(429, r#"{"error": "slow down"}"#).header(name, value));
            mock.push(openai_text(&["fine"], "stop"));
            let mut answer = agent.prompt(&session, "again").await;
            if answer.get("error").is_some() {
                // A wait longer than the budget left: a clear error, and the session goes on.
                let message = answer["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("HTTP 429"), "{name}: {value}: {answer}");
                answer = agent.prompt(&session, "and now?").await;
            }
            assert_eq!(
                answer["result"]["stopReason"], "end_turn",
                "{name}: {value}: {answer}"
            );
            assert!(
                agent.agent_text().ends_with("fine"),
                "{}",
                agent.agent_text()
            );
        }
    }
}

/// An agent that retries (a 2 s total budget caps what a server may ask to wait).
async fn start_retrying() -> (MockLlm, TestEnv, crate::support::AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["options"]["maxRetries"] = json!(1);
    config["provider"]["mock"]["options"]["totalTimeout"] = json!(2_000);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}
