//! A session's status through the binary: busy while a turn runs, `retry` with the attempt,
//! the reason and when the next try starts while the provider is retried, idle after; ACP's
//! `session/status` (open or saved) and `session/set_title` (the person's name for it).

use crate::support::MockResponse;
use crate::support::mock_llm::openai_text;
use serde_json::json;

#[tokio::test]
async fn a_retried_model_request_shows_as_retry_then_busy_then_idle() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(
        MockResponse::status(429, r#"{"error": {"message": "slow down"}}"#)
            .header("retry-after", "2"),
    );
    mock.push(openai_text(&["at last"], "stop"));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}),
        )
        .await;
    let asked_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // The status request may be served before the prompt's turn has begun (idle), so wait
    // for `retry` by what was seen, not by a clock: busy may come first, the answer never.
    let mut seen = Vec::new();
    let status = loop {
        let answer = agent
            .request("_tandem/session/status", json!({"sessionId": session}))
            .await;
        let status = answer["result"].clone();
        if status["type"] == "retry" {
            break status;
        }
        seen.push(status["type"].clone());
        assert!(
            !agent.received.iter().any(|m| m["id"] == json!(prompt)),
            "the turn ended without a retry being shown: {seen:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(status["attempt"], 1, "{status}");
    assert_eq!(status["message"], "HTTP 429 Too Many Requests");
    let next = status["next"].as_i64().unwrap();
    assert!(next > asked_at && next <= asked_at + 3_000, "{status}");
    let all = agent.request("_tandem/session/status", json!({})).await;
    assert_eq!(all["result"][&session]["type"], "retry");
    // ACP's `session/status` says the session is open here, with Tandem's words beside it.
    let acp = agent
        .request("session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(acp["result"]["status"], "open");
    assert_eq!(acp["result"]["_meta"]["tandem"]["status"]["type"], "retry");
    let done = agent.response(prompt).await;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    assert!(agent.agent_text().contains("at last"));
    let idle = agent
        .request("_tandem/session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(idle["result"], json!({"type": "idle"}));
}

#[tokio::test]
async fn session_status_tells_open_from_saved_and_unknown_without_opening_anything() {
    let (_mock, env, mut agent, session) = crate::support::start("openai").await;
    let open = agent
        .request("session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(
        open["result"],
        json!({"status": "open", "_meta": {"tandem": {"status": {"type": "idle"}}}})
    );
    // Another process knows it only as stored.
    let mut other = env.spawn();
    other.initialize().await;
    let saved = other
        .request("session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(saved["result"]["status"], "saved");
    let again = other
        .request("session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(again["result"]["status"], "saved", "asking opened nothing");
    let unknown = other
        .request("session/status", json!({"sessionId": "nope"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32002);
    assert_eq!(unknown["error"]["data"]["sessionId"], "nope");
}

#[tokio::test]
async fn the_persons_title_is_stored_shown_and_never_replaced_by_a_generated_one() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let renamed = agent
        .request(
            "session/set_title",
            json!({"sessionId": session, "title": "  Storage\n  migration  "}),
        )
        .await;
    assert_eq!(renamed["result"], json!({"title": "Storage migration"}));
    let shown = agent.updates_of("session_info_update");
    assert_eq!(shown.last().unwrap()["title"], "Storage migration");
    // The first prompt would title a session by its first line; the person's name stays.
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "Refactor the parser").await;
    let list = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    assert_eq!(list["result"]["sessions"][0]["title"], "Storage migration");
    assert_eq!(mock.title_requests().len(), 0, "no title was generated");

    let empty = agent
        .request(
            "session/set_title",
            json!({"sessionId": session, "title": " \n "}),
        )
        .await;
    assert_eq!(empty["error"]["code"], -32602);
    let unknown = agent
        .request(
            "session/set_title",
            json!({"sessionId": "nope", "title": "x"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32002);
}
