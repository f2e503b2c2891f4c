//! `_session/steering` through the binary: advertised in `initialize`, the person's words land
//! in the running turn at its next step and the request is answered at once with `injected`;
//! with no turn running they start one (`startedNewTurn`), or, when the client asks for it,
//! nothing runs (`promptRequired`); a session that is not there answers `failed`.

use std::time::Duration;

use crate::support::mock_llm::{Gate, openai_text, openai_tool_calls};
use serde_json::{Value, json};

fn steering(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn words_sent_during_a_slow_turn_land_at_its_next_step_and_are_answered_at_once() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let held = Gate::default();
    let first_step = openai_tool_calls(&[("call_1", "list", "{}")]);
    let last = first_step.chunks.len() - 1;
    mock.push(first_step.gated(last, &held));
    mock.push(openai_text(
        &["Listed, and looked at the tests too."],
        "stop",
    ));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "list the files"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "tool_call")
        .await;
    let steer = agent
        .start_request(
            "_session/steering",
            steering(&session, "look at the tests too"),
        )
        .await;
    // Answered while the step is still held: the words wait for the next step.
    let answered = agent.response(steer).await;
    assert_eq!(
        answered["result"],
        json!({"outcome": "injected"}),
        "{answered}"
    );
    held.open();
    let done = agent.response(prompt).await;
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "one turn, two steps");
    let texts = user_texts(&requests[1].body);
    assert!(
        texts
            .last()
            .is_some_and(|t| t.contains("look at the tests too")),
        "{texts:?}"
    );
}

#[tokio::test]
async fn with_no_turn_running_the_words_start_one_unless_the_client_wants_a_prompt() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let init = agent.initialize().await;
    assert_eq!(
        init["result"]["_meta"]["steering"],
        json!({"supported": true}),
        "{init}"
    );
    let mut required = steering(&session, "anything");
    required["_meta"] = json!({"steering": {"idleBehavior": "promptRequired"}});
    let answered = agent.request("_session/steering", required).await;
    assert_eq!(
        answered["result"],
        json!({"outcome": "promptRequired", "reason": "noRunningTurn"})
    );
    assert!(mock.requests().is_empty(), "nothing ran");

    mock.push(openai_text(&["On it."], "stop"));
    let answered = agent
        .request("_session/steering", steering(&session, "run the linter"))
        .await;
    assert_eq!(answered["result"], json!({"outcome": "startedNewTurn"}));
    agent
        .wait_for_update(|u| u["update"]["content"]["text"] == "On it.")
        .await;
    let requests = mock.requests();
    assert!(
        user_texts(&requests[0].body)
            .last()
            .is_some_and(|t| t.contains("run the linter")),
        "{:?}",
        user_texts(&requests[0].body)
    );
    // The session is idle again afterwards: a prompt runs as usual.
    tokio::time::sleep(Duration::from_millis(50)).await;
    mock.push(openai_text(&["Done."], "stop"));
    let done = agent.prompt(&session, "thanks").await;
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");

    let answered = agent
        .request("_session/steering", steering("no-such-session", "hello"))
        .await;
    assert_eq!(answered["result"]["outcome"], "failed", "{answered}");
    assert!(
        answered["result"]["reason"]
            .as_str()
            .unwrap()
            .contains("no-such-session"),
        "{answered}"
    );
}
