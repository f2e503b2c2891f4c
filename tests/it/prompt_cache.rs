//! Prompt caching and cost through the real binary: each request extends the previous one
//! byte for byte, Anthropic requests carry at most four `cache_control` breakpoints (tools,
//! system, the last two messages), OpenAI requests carry the session's `prompt_cache_key`,
//! cached counts reach the usage meter, and a reloaded session shows its meter again.

use crate::support::mock_llm::{
    anthropic_text, anthropic_tool_use, openai_text, openai_tool_calls,
};
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

/// Every `cache_control` mark in a request, by where it sits.
fn marks(body: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for (i, tool) in body["tools"].as_array().into_iter().flatten().enumerate() {
        if tool.get("cache_control").is_some() {
            found.push(format!("tool {i}"));
        }
    }
    for (i, block) in body["system"].as_array().into_iter().flatten().enumerate() {
        if block.get("cache_control").is_some() {
            found.push(format!("system {i}"));
        }
    }
    for (i, message) in body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for block in message["content"].as_array().into_iter().flatten() {
            if block.get("cache_control").is_some() {
                found.push(format!("message {i}"));
            }
        }
    }
    found
}

#[tokio::test]
async fn anthropic_breakpoints_move_forward_and_requests_extend_each_other() {
    let (mock, _env, mut agent, session) = crate::support::start("anthropic").await;
    mock.push(anthropic_tool_use("toolu_1", "list", &["{}"]));
    mock.push(anthropic_text("", &["Listed."], "end_turn"));
    agent.prompt(&session, "list").await;
    mock.push(anthropic_text("", &["Again."], "end_turn"));
    agent.prompt(&session, "again").await;
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    let tools = requests[0].body["tools"].as_array().unwrap().len();
    let systems = requests[0].body["system"].as_array().unwrap().len();
    for (n, request) in requests.iter().enumerate() {
        let count = request.body["messages"].as_array().unwrap().len();
        let mut expected = vec![
            format!("tool {}", tools - 1),
            format!("system {}", systems - 1),
        ];
        expected.extend((count.saturating_sub(2)..count).map(|i| format!("message {i}")));
        assert_eq!(marks(&request.body), expected, "request {n}");
    }
    // Without the marks, each request's tools, system and messages begin with the last's.
    for pair in requests.windows(2) {
        let (before, after) = (
            crate::support::without_cache_marks(&pair[0].body),
            crate::support::without_cache_marks(&pair[1].body),
        );
        assert_eq!(before["tools"], after["tools"]);
        assert_eq!(before["system"], after["system"]);
        let (old, new) = (
            before["messages"].as_array().unwrap(),
            after["messages"].as_array().unwrap(),
        );
        // The last old message may have grown (tool results join the next user turn).
        assert_eq!(old[..old.len() - 1], new[..old.len() - 1]);
    }
}

#[tokio::test]
async fn openai_requests_carry_the_session_cache_key_and_a_stable_prefix() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_calls(&[("call_1", "list", "{}")]));
    mock.push(openai_text(&["Listed."], "stop"));
    agent.prompt(&session, "list").await;
    mock.push(openai_text(&["Again."], "stop"));
    agent.prompt(&session, "again").await;
    let requests = mock.requests();
    for request in &requests {
        assert_eq!(request.body["prompt_cache_key"], json!(session));
    }
    for pair in requests.windows(2) {
        let old = pair[0].body["messages"].as_array().unwrap();
        let new = pair[1].body["messages"].as_array().unwrap();
        assert_eq!(old[..], new[..old.len()]);
        assert_eq!(pair[0].body["tools"], pair[1].body["tools"]);
    }
}

#[tokio::test]
async fn caching_hints_can_be_turned_off_per_provider() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "anthropic");
    config["provider"]["mock"]["options"]["cache"] = json!(false);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(anthropic_text("", &["ok"], "end_turn"));
    agent.prompt(&session, "hi").await;
    assert!(marks(&mock.requests()[0].body).is_empty());
}

#[tokio::test]
async fn cached_tokens_reach_the_meter_and_a_reload_shows_it_again() {
    let (mock, env, mut agent, session) = crate::support::start("anthropic").await;
    mock.push(anthropic_text("", &["ok"], "end_turn"));
    agent.prompt(&session, "hi").await;
    let live = agent.updates_of("usage_update").last().unwrap().clone();
    // 200 input + 50 cache read + 15 output; $1/M input, $2/M output, no cache price set.
    assert_eq!(live["used"], 265);
    assert_eq!(live["_meta"]["tandem"]["cacheReadTokens"], 50);
    assert_eq!(live["_meta"]["tandem"]["inputTokens"], 200);
    let cost = (200.0 * 1.0 + 15.0 * 2.0) / 1_000_000.0;
    assert_eq!(live["cost"], json!({"amount": cost, "currency": "USD"}));

    for method in ["session/load", "session/resume"] {
        drop(agent);
        agent = env.spawn();
        agent.initialize().await;
        agent
            .request(
                method,
                json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
            )
            .await;
        let shown = agent
            .wait_for_update(|u| u["update"]["sessionUpdate"] == "usage_update")
            .await;
        assert_eq!(shown["update"], live, "{method}");
    }
}
