//! Retries the person can see, through the binary: a refused request tried again shows a line
//! in the answer (or a notice, for editors that take notices), an answer that breaks off
//! mid-stream is asked for again without the model ever seeing the broken half, and a reload
//! replays exactly what was shown live.

use crate::support::mock_llm::openai_text;
use crate::support::{AcpProcess, MockLlm, MockResponse, TestEnv};
use serde_json::{Value, json};

/// An agent whose provider retries twice, 100 ms apart, and gives up on a silent stream
/// after 300 ms.
async fn start(capabilities: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["options"]["maxRetries"] = json!(2);
    config["provider"]["mock"]["options"]["retryDelay"] = json!(100);
    config["provider"]["mock"]["options"]["chunkTimeout"] = json!(300);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize_with(capabilities).await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

fn plain() -> Value {
    json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false})
}

/// Text that arrives and then stops: no finish reason, no `[DONE]`.
fn broken_off(text: &str) -> MockResponse {
    MockResponse::sse(vec![(
        None,
        json!({"id": "c1", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]})
        .to_string(),
    )])
}

/// Every text the model was sent in the request's messages, joined.
fn request_text(body: &Value) -> String {
    body["messages"].to_string()
}

#[tokio::test]
async fn a_refused_request_tried_again_is_a_line_of_the_answer_live_and_on_reload() {
    let (mock, env, mut agent, session) = start(plain()).await;
    mock.push(MockResponse::status(
        503,
        r#"{"error": {"message": "overloaded"}}"#,
    ));
    mock.push(openai_text(&["at last"], "stop"));
    let answer = agent.prompt(&session, "hi").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let live = agent.agent_text();
    assert_eq!(
        live,
        "\n\nThe model request failed (attempt 1): HTTP 503 Service Unavailable. Trying again \
         in 0.1 s.\n\nat last"
    );
    assert_eq!(mock.requests().len(), 2);
    let reloaded = crate::support::crash::load_in_new_process(&env, &session).await;
    assert_eq!(reloaded.agent_text(), live);
}

#[tokio::test]
async fn an_answer_that_breaks_off_is_asked_for_again_and_the_model_never_sees_the_half() {
    let (mock, env, mut agent, session) = start(plain()).await;
    mock.push(broken_off("Half an ans"));
    mock.push(openai_text(&["A whole ", "answer."], "stop"));
    let answer = agent.prompt(&session, "explain").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let live = agent.agent_text();
    assert_eq!(
        live,
        "Half an ans\n\nThe model request failed (attempt 1): mock stream broke off: the stream \
         ended before the model finished (no finish reason, no [DONE]). Trying again in 0.1 \
         s.\n\nA whole answer."
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    // The same question, asked again: the broken half is not in it.
    assert_eq!(requests[0].body["messages"], requests[1].body["messages"]);

    mock.push(openai_text(&["Sure."], "stop"));
    agent.prompt(&session, "and then?").await;
    let history = request_text(&mock.requests()[2].body);
    assert!(history.contains("A whole answer."), "{history}");
    assert!(!history.contains("Half an ans"), "{history}");

    let reloaded = crate::support::crash::load_in_new_process(&env, &session).await;
    assert_eq!(reloaded.agent_text(), format!("{live}Sure."));
}

#[tokio::test]
async fn a_stall_that_keeps_breaking_gives_up_after_the_retries_with_the_reason() {
    let (mock, _env, mut agent, session) = start(plain()).await;
    for _ in 0..3 {
        mock.push(openai_text(&["one ", "two ", "three"], "stop").hang_after(2));
    }
    let answer = agent.prompt(&session, "talk").await;
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("stalled"), "{answer}");
    assert_eq!(mock.requests().len(), 3);
    let text = agent.agent_text();
    assert_eq!(text.matches("Trying again").count(), 2, "{text}");
    assert!(text.contains("(attempt 2)"), "{text}");
    assert!(text.ends_with("one "), "{text}");
    let status = agent
        .request("_tandem/session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(status["result"], json!({"type": "idle"}));
}

#[tokio::test]
async fn editors_that_take_notices_get_a_notice_that_is_not_replayed() {
    let mut capabilities = plain();
    capabilities["session"] = json!({"notices": {}});
    let (mock, env, mut agent, session) = start(capabilities.clone()).await;
    mock.push(broken_off("Half"));
    mock.push(openai_text(&["Whole."], "stop"));
    let answer = agent.prompt(&session, "go").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    // (The session's sandbox notice, said when it opened, is not a retry.)
    let notices: Vec<_> = agent
        .updates_of("notice")
        .into_iter()
        .filter(|n| n["title"] != "Sandbox")
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["severity"], "warning");
    assert_eq!(notices[0]["title"], "Retrying the model request");
    let description = notices[0]["description"].as_str().unwrap();
    assert!(
        description.starts_with("The model request failed (attempt 1): mock stream broke off"),
        "{description}"
    );
    assert_eq!(agent.agent_text(), "HalfWhole.");

    let mut reloaded = env.spawn();
    reloaded.initialize_with(capabilities).await;
    let loaded = reloaded
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("result").is_some(), "{loaded}");
    assert!(
        reloaded
            .updates_of("notice")
            .iter()
            .all(|n| n["title"] == "Sandbox"),
        "a retry notice is not history"
    );
    assert_eq!(reloaded.agent_text(), "HalfWhole.");
}

#[tokio::test]
async fn a_rate_limit_that_says_when_it_resets_is_waited_out_and_the_person_is_told() {
    let (mock, _env, mut agent, session) = start(plain()).await;
    // OpenAI's way: no retry-after, the reset in its own headers (the later one counts).
    mock.push(
        MockResponse::status(
            429,
            r#"{"error": {"message": "Rate limit reached for tokens"}}"#,
        )
        .header("x-ratelimit-reset-requests", "0.2s")
        .header("x-ratelimit-reset-tokens", "1.5s"),
    );
    mock.push(openai_text(&["at last"], "stop"));
    let answer = agent.prompt(&session, "hi").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let requests = mock.requests();
    let waited = requests[1].at - requests[0].at;
    assert!(
        waited >= std::time::Duration::from_millis(1400),
        "{waited:?}"
    );
    let live = agent.agent_text();
    assert!(
        live.contains(
            "The model request failed (attempt 1): HTTP 429 Too Many Requests. Trying again in \
             1.5 s."
        ),
        "{live}"
    );
}

#[tokio::test]
async fn a_limit_resetting_past_the_requests_budget_says_when_to_try_again() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["options"]["totalTimeout"] = json!(2000);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let reset = humantime::format_rfc3339_seconds(
        std::time::SystemTime::now() + std::time::Duration::from_secs(1800),
    )
    .to_string();
    mock.push(
        MockResponse::status(429, r#"{"error": {"message": "usage limit reached"}}"#)
            .header("anthropic-ratelimit-tokens-reset", &reset),
    );
    let answer = agent.prompt(&session, "hi").await;
    let message = answer["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("usage limit reached. The limit resets at ")
            && message.contains("UTC (in 30 min), later than this request may wait"),
        "{answer}"
    );
    assert_eq!(mock.requests().len(), 1, "no hopeless retries");
}

#[tokio::test]
async fn a_limit_named_only_in_the_errors_words_is_waited_out_too() {
    let (mock, _env, mut agent, session) = start(plain()).await;
    mock.push(MockResponse::status(
        429,
        r#"{"error": {"message": "Rate limit reached for gpt-4.1 on tokens per min (TPM). Please try again in 1.2s. Visit https://platform.openai.com/account/rate-limits."}}"#,
    ));
    mock.push(openai_text(&["at last"], "stop"));
    let answer = agent.prompt(&session, "hi").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let requests = mock.requests();
    let waited = requests[1].at - requests[0].at;
    assert!(
        waited >= std::time::Duration::from_millis(1150),
        "{waited:?}"
    );
    assert!(
        agent
            .agent_text()
            .contains("HTTP 429 Too Many Requests. Trying again in 1.2 s."),
        "{}",
        agent.agent_text()
    );
}
