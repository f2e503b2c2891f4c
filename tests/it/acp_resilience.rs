//! Failure paths through the binary: provider retries and errors, cancel mid-stream, and a
//! SIGKILL mid-turn leaving a database that loads and passes its integrity check.

use std::time::{Duration, Instant};

use crate::support::mock_llm::openai_text;
use crate::support::{MockResponse, TestEnv};
use serde_json::json;

#[tokio::test]
async fn a_429_is_retried_after_retry_after_and_the_turn_succeeds() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(
        MockResponse::status(429, r#"{"error":{"message":"slow down"}}"#)
            .header("retry-after", "0"),
    );
    mock.push(openai_text(&["made it"], "stop"));
    let response = agent.prompt(&session, "hi").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    // The retry is shown as a line of the answer (see tests/it/retries.rs), then the answer.
    assert_eq!(
        agent.agent_text(),
        "\n\nThe model request failed (attempt 1): HTTP 429 Too Many Requests. Trying again in \
         0 s.\n\nmade it"
    );
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test]
async fn a_server_error_that_persists_is_a_clear_error_and_the_session_stays_usable() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    for _ in 0..3 {
        mock.push(MockResponse::status(
            500,
            r#"{"error":{"message":"upstream exploded"}}"#,
        ));
    }
    let response = agent.prompt(&session, "hi").await;
    assert_eq!(mock.requests().len(), 3, "one try and two retries");
    assert_eq!(response["error"]["code"], -32603, "{response}");
    assert_eq!(
        response["error"]["message"],
        "mock answered HTTP 500: upstream exploded (gave up after 3 attempts)"
    );
    mock.push(openai_text(&["back"], "stop"));
    let response = agent.prompt(&session, "again").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    // The failed turn's question is still in the history the model gets.
    let last = &mock.requests()[3].body["messages"];
    assert_eq!(last[1], json!({"role": "user", "content": "hi"}));
    assert_eq!(last[2], json!({"role": "user", "content": "again"}));
}

#[tokio::test]
async fn unauthorized_and_unknown_models_say_what_to_fix() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(MockResponse::status(
        401,
        r#"{"error":{"message":"Incorrect API key provided"}}"#,
    ));
    let response = agent.prompt(&session, "hi").await;
    assert_eq!(response["error"]["code"], -32000, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("Incorrect API key provided"), "{message}");
    assert!(
        message.contains("provider.mock.options.apiKey"),
        "{message}"
    );

    mock.push(MockResponse::status(
        404,
        r#"{"error":{"message":"The model `test-model` does not exist"}}"#,
    ));
    let response = agent.prompt(&session, "hi").await;
    let message = response["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("does not know the model `test-model`"),
        "{message}"
    );
    assert_eq!(
        mock.requests().len(),
        2,
        "4xx other than 429 are not retried"
    );
}

#[tokio::test]
async fn cancel_mid_stream_answers_cancelled_and_keeps_the_partial_text() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    // Two chunks arrive, then the stream stalls forever.
    mock.push(openai_text(&["Partial ", "answer", " never finished"], "stop").hang_after(3));
    let id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["content"]["text"] == "answer")
        .await;
    let started = Instant::now();
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(id).await;
    let elapsed = started.elapsed();
    assert_eq!(
        response["result"],
        json!({"stopReason": "cancelled"}),
        "{response}"
    );
    // The stream hangs forever: only the cancel could have ended the turn (how fast it does is
    // measured in the benchmarks, not here).
    assert!(elapsed < Duration::from_secs(10), "cancel took {elapsed:?}");
    assert_eq!(agent.agent_text(), "Partial answer");

    // The partial text is stored, and the message is marked cancelled.
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let texts: Vec<String> = conn
        .prepare("SELECT data FROM part WHERE session_id = ?1 AND data LIKE '{\"type\":\"text\"%' ORDER BY id")
        .unwrap()
        .query_map([&session], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        texts,
        [
            r#"{"type":"text","text":"go"}"#,
            r#"{"type":"text","text":"Partial answer"}"#
        ]
    );
    let finish: String = conn
        .query_row(
            "SELECT json_extract(data, '$.finish') FROM message WHERE session_id = ?1 AND role = 'assistant'",
            [&session],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(finish, "cancelled");

    // The session goes on.
    mock.push(openai_text(&["fine"], "stop"));
    let response = agent.prompt(&session, "continue").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
}

#[tokio::test]
async fn sigkill_mid_stream_leaves_a_database_that_loads() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["first answer"], "stop"));
    agent.prompt(&session, "one").await;
    mock.push(openai_text(&["streaming ", "when ", "killed"], "stop").hang_after(3));
    agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "two"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["content"]["text"] == "when ")
        .await;
    let pid = agent.child.id().unwrap() as i32;
    // SAFETY: signalling our own child process.
    assert_eq!(unsafe { libc_kill(pid, 9) }, 0);
    let status = agent.child.wait().await.unwrap();
    assert!(!status.success());

    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(conn);

    let mut fresh = env.spawn();
    fresh.initialize().await;
    let response = fresh
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(response.get("result").is_some(), "{response}");
    let users: Vec<String> = fresh
        .updates_of("user_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(users, ["one", "two"]);
    assert_eq!(
        fresh.agent_text(),
        "first answer",
        "the part in flight is the only loss"
    );
    // And the session still works.
    mock.push(openai_text(&["recovered"], "stop"));
    let response = fresh.prompt(&session, "three").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
}

unsafe extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, signal: i32) -> i32;
}

#[tokio::test]
async fn an_unreachable_provider_is_retried_then_named_in_the_error() {
    let env = TestEnv::new();
    // Nothing listens on this port: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    env.write_project_config(&TestEnv::mock_config(&url, "openai"));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent.prompt(&session, "hi").await;
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!("cannot reach mock at {url}/chat/completions")),
        "{response}"
    );
    assert!(message.ends_with("(after 3 attempts)"), "{message}");
}
