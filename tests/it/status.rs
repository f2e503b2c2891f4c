//! A session's status through the binary: busy while a turn runs, `retry` with the attempt,
//! the reason and when the next try starts while the provider is retried, idle after.

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
    let done = agent.response(prompt).await;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    assert!(agent.agent_text().contains("at last"));
    let idle = agent
        .request("_tandem/session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(idle["result"], json!({"type": "idle"}));
}
