//! A model that will not take no for an answer: after the person rejects a call (or a rule
//! denies one) the turn ends after that step by default; near-identical repeats count as a
//! loop; a tool error says what the model can fix.

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{MockLlm, TestEnv};
use serde_json::json;

async fn agent_with(
    config_change: impl FnOnce(&mut serde_json::Value),
) -> (MockLlm, TestEnv, crate::support::AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config
        .as_object_mut()
        .unwrap()
        .remove("continue_loop_on_deny");
    config_change(&mut config);
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

fn bash(id: &str, command: &str) -> crate::support::MockResponse {
    openai_tool_call(
        id,
        "bash",
        &[&json!({"command": command, "description": "Run"}).to_string()],
    )
}

#[tokio::test]
async fn a_rejected_call_ends_the_turn_after_its_step() {
    let (mock, _env, mut agent, session) = agent_with(|c| {
        c["permission"] = json!({"bash": "ask"});
    })
    .await;
    agent.permission_choice = Some("reject_once".into());
    mock.push(bash("c1", "rm -rf build"));
    mock.push(bash("c2", "rm -rf build --force"));
    mock.push(openai_text(&["never asked for"], "stop"));
    let answer = agent.prompt(&session, "clean up").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    assert_eq!(mock.requests().len(), 1, "the model was not asked again");
    assert_eq!(agent.permission_requests().len(), 1);
}

#[tokio::test]
async fn a_denied_call_ends_the_turn_unless_continue_loop_on_deny() {
    let (mock, _env, mut agent, session) = agent_with(|c| {
        c["permission"] = json!({"bash": {"*": "allow", "rm *": "deny"}});
    })
    .await;
    mock.push(bash("c1", "rm -rf /tmp/x"));
    mock.push(openai_text(&["never asked for"], "stop"));
    let answer = agent.prompt(&session, "clean up").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), 1);

    let (mock, _env, mut agent, session) = agent_with(|c| {
        c["permission"] = json!({"bash": {"*": "allow", "rm *": "deny"}});
        c["continue_loop_on_deny"] = json!(true);
    })
    .await;
    mock.push(bash("c1", "rm -rf /tmp/x"));
    mock.push(openai_text(&["Understood, I will not delete it."], "stop"));
    let answer = agent.prompt(&session, "clean up").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), 2, "the model was told and answered");
}

#[tokio::test]
async fn repeats_that_differ_only_in_spacing_are_a_doom_loop() {
    let (mock, _env, mut agent, session) = agent_with(|_| {}).await;
    agent.permission_choice = Some("reject_once".into());
    mock.push(bash("c1", "echo  hi"));
    mock.push(bash("c2", "echo hi"));
    mock.push(bash("c3", " echo hi "));
    mock.push(openai_text(&["stopped"], "stop"));
    agent.prompt(&session, "say hi").await;
    let asks = agent.permission_requests();
    assert_eq!(asks.len(), 1, "{asks:?}");
    assert_eq!(
        asks[0]["params"]["toolCall"]["title"],
        "bash was called three times in a row with the same input",
        "{}",
        asks[0]
    );
}

#[tokio::test]
async fn a_missing_workdir_is_named_as_such() {
    let (mock, _env, mut agent, session) = agent_with(|_| {}).await;
    mock.push(openai_tool_call(
        "c1",
        "bash",
        &[r#"{"command": "ls", "description": "List", "workdir": "no/such/dir"}"#],
    ));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "list").await;
    let result = mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(result.contains("no/such/dir does not exist"), "{result}");
    assert!(!result.contains("Cannot start"), "{result}");
}
