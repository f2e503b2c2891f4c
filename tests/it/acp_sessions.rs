//! Session lifecycle through the binary: load replays history in a fresh process, resume
//! does not, list filters and pages, close frees the session but keeps it stored.

use crate::support::TestEnv;
use crate::support::mock_llm::{anthropic_text, anthropic_tool_use};
use serde_json::{Value, json};

#[tokio::test]
async fn load_in_a_fresh_process_replays_the_whole_history() {
    let (mock, env, mut first, session) = crate::support::start("anthropic").await;
    mock.push(anthropic_tool_use("toolu_9", "list", &["{}"]));
    mock.push(anthropic_text(
        "Considering.",
        &["There is ", "a README."],
        "end_turn",
    ));
    first
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [
                {"type": "text", "text": "What is here?"},
                {"type": "resource", "resource": {"uri": "file:///x/notes.md", "text": "remember me", "mimeType": "text/markdown"}}
            ]}),
        )
        .await;
    let live_message_id = first.updates_of("agent_message_chunk")[0]["messageId"].clone();
    assert!(first.shutdown().await.success());

    let mut second = env.spawn();
    second.initialize().await;
    let response = second
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert_eq!(
        response["result"]["modes"]["currentModeId"], "build",
        "{response}"
    );
    let replay: Vec<Value> = second.updates.iter().map(|u| u["update"].clone()).collect();
    let user_id = replay[0]["messageId"].clone();
    let tool_output = format!("{}/\n  README.md\n  tandem.json\n", env.project.display());
    assert_eq!(
        replay,
        [
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "What is here?"}, "messageId": user_id}),
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "resource", "resource": {"uri": "file:///x/notes.md", "text": "remember me", "mimeType": "text/markdown"}}, "messageId": user_id}),
            json!({"sessionUpdate": "tool_call", "toolCallId": "toolu_9", "title": ".", "kind": "search", "status": "completed",
                   "content": [{"type": "content", "content": {"type": "text", "text": tool_output}}],
                   "locations": [{"path": env.project}],
                   "rawInput": {}, "rawOutput": {"output": tool_output, "metadata": {"count": 2, "truncated": false}}}),
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Considering."}, "messageId": live_message_id}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "There is a README."}, "messageId": live_message_id}),
        ]
    );
    // The replay comes before the answer.
    let answer_at = second
        .received
        .iter()
        .position(|m| m.get("result").is_some() && m["id"] == 2)
        .unwrap();
    assert_eq!(answer_at, second.received.len() - 1);

    // The loaded session continues with its history.
    mock.push(anthropic_text("Hm.", &["Yes."], "end_turn"));
    let response = second.prompt(&session, "Sure?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let messages = mock.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        messages.len(),
        5,
        "user, tool use, result, answer, new question"
    );
    assert_eq!(
        messages[0]["content"][1]["text"],
        "<file uri=\"file:///x/notes.md\">\nremember me\n</file>"
    );
}

#[tokio::test]
async fn resume_opens_without_replay() {
    let (mock, env, mut first, session) = crate::support::start("anthropic").await;
    mock.push(anthropic_text("t", &["one"], "end_turn"));
    first.prompt(&session, "first").await;
    first.shutdown().await;

    let mut second = env.spawn();
    second.initialize().await;
    let response = second
        .request(
            "session/resume",
            json!({"sessionId": session, "cwd": env.project}),
        )
        .await;
    assert_eq!(
        response["result"]["modes"]["currentModeId"], "build",
        "{response}"
    );
    assert!(second.updates.is_empty(), "no replay: {:?}", second.updates);
    mock.push(anthropic_text("t", &["two"], "end_turn"));
    let response = second.prompt(&session, "second").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(second.agent_text(), "two");
    let messages = &mock.requests()[1].body["messages"];
    assert_eq!(
        messages.as_array().unwrap().len(),
        3,
        "history kept: {messages}"
    );
}

#[tokio::test]
async fn list_filters_by_cwd_and_pages_with_a_cursor() {
    let env = TestEnv::new();
    let other = env.root.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let mut mine = Vec::new();
    for _ in 0..3 {
        mine.push(agent.new_session(&env.project).await);
    }
    let elsewhere = agent.new_session(&other).await;

    let response = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    let sessions = response["result"]["sessions"].as_array().unwrap().clone();
    let ids: Vec<&str> = sessions
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap())
        .collect();
    let newest_first: Vec<&str> = mine.iter().rev().map(String::as_str).collect();
    assert_eq!(ids, newest_first);
    assert!(response["result"].get("nextCursor").is_none());
    let first = &sessions[0];
    assert_eq!(first["cwd"], json!(env.project));
    assert!(
        first["title"]
            .as_str()
            .unwrap()
            .starts_with("New session - ")
    );
    let updated = first["updatedAt"].as_str().unwrap();
    assert!(updated.ends_with('Z') && updated.len() == 24, "{updated}");

    let all = agent.request("session/list", json!({})).await;
    let count = all["result"]["sessions"].as_array().unwrap().len();
    assert_eq!(count, 4);
    assert!(
        all["result"]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["sessionId"] == elsewhere)
    );
}

#[tokio::test]
async fn list_pages_hold_100_sessions() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    for _ in 0..101 {
        agent.new_session(&env.project).await;
    }
    let page = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    assert_eq!(page["result"]["sessions"].as_array().unwrap().len(), 100);
    let cursor = page["result"]["nextCursor"].as_str().unwrap().to_owned();
    let next = agent
        .request(
            "session/list",
            json!({"cwd": env.project, "cursor": cursor}),
        )
        .await;
    assert_eq!(next["result"]["sessions"].as_array().unwrap().len(), 1);
    assert!(next["result"].get("nextCursor").is_none());
}

#[tokio::test]
async fn close_frees_the_session_and_keeps_it_stored() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent
        .request("session/close", json!({"sessionId": session}))
        .await;
    assert_eq!(response["result"], json!({}));
    let response = agent.prompt(&session, "still there?").await;
    assert_eq!(
        response["error"]["code"], -32002,
        "closed sessions take no prompts: {response}"
    );
    let response = agent
        .request(
            "session/resume",
            json!({"sessionId": session, "cwd": env.project}),
        )
        .await;
    assert_eq!(
        response["result"]["modes"]["currentModeId"], "build",
        "but can be opened again"
    );
}
