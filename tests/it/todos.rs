//! The todo list through the binary: todowrite → the editor's plan (every status and
//! priority), replacement, invalid input leaving the list alone, replay on load and resume,
//! `_tandem/session/todo`, and a list that survives a SIGKILL.

use crate::support::mock_llm::openai_text;
use crate::support::{TestEnv, call_tool, call_updates};
use serde_json::{Value, json};

fn all_kinds() -> Value {
    json!({"todos": [
        {"content": "Read the parser", "status": "completed", "priority": "high"},
        {"content": "Fix the off-by-one", "status": "in_progress", "priority": "high"},
        {"content": "Add a regression test", "status": "pending", "priority": "medium"},
        {"content": "Rewrite in Zig", "status": "cancelled", "priority": "low"}
    ]})
}

fn stored(env: &TestEnv, session: &str) -> Value {
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let data: String = conn
        .query_row(
            "SELECT data FROM todo WHERE session_id = ?1",
            [session],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&data).unwrap()
}

#[tokio::test]
async fn todowrite_becomes_the_plan_with_every_status_and_priority() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let (_, result) = call_tool(&mock, &mut agent, &session, "todowrite", all_kinds()).await;
    let todos = stored(&env, &session);
    let ids: Vec<&str> = todos
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(ids.iter().all(|id| id.len() == 26));
    let plans = agent.updates_of("plan");
    assert_eq!(plans.len(), 1);
    assert_eq!(
        plans[0],
        json!({"sessionUpdate": "plan", "entries": [
            {"content": "Read the parser", "priority": "high", "status": "completed", "_meta": {"tandem": {"id": ids[0], "status": "completed"}}},
            {"content": "Fix the off-by-one", "priority": "high", "status": "in_progress", "_meta": {"tandem": {"id": ids[1], "status": "in_progress"}}},
            {"content": "Add a regression test", "priority": "medium", "status": "pending", "_meta": {"tandem": {"id": ids[2], "status": "pending"}}},
            {"content": "Rewrite in Zig", "priority": "low", "status": "completed", "_meta": {"tandem": {"id": ids[3], "status": "cancelled"}}}
        ]})
    );
    // The model gets the list as JSON; the editor's title counts what the plan shows (all
    // four items; it once counted only the open ones, which no one could see to check).
    let output: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    assert_eq!(output, todos);
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(done["title"], "4 todos");
    let call = &agent.updates_of("tool_call")[0];
    assert_eq!(
        (&call["toolCallId"], &call["kind"]),
        (&json!("call_0"), &json!("think"))
    );
    assert_eq!(done["rawOutput"]["metadata"]["todos"], todos);
    // The person reads a summary, not the JSON the model reads.
    assert_eq!(
        done["content"][0]["content"]["text"],
        "1 of 4 done, 1 in progress, 1 cancelled\n[x] Read the parser\n[>] Fix the off-by-one\n\
         [ ] Add a regression test\n[-] Rewrite in Zig"
    );
    // todoread returns the same without changing anything.
    let (_, read) = call_tool(&mock, &mut agent, &session, "todoread", json!({})).await;
    assert_eq!(
        serde_json::from_str::<Value>(read["content"].as_str().unwrap()).unwrap(),
        todos
    );
    assert_eq!(agent.updates_of("plan").len(), 1);
}

#[tokio::test]
async fn a_second_write_replaces_the_list_and_keeps_ids() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    call_tool(&mock, &mut agent, &session, "todowrite", all_kinds()).await;
    let first = stored(&env, &session);
    let second = json!({"todos": [
        {"content": "Fix the off-by-one", "status": "completed", "priority": "high"},
        {"id": first[2]["id"], "content": "Add two regression tests", "status": "in_progress", "priority": "medium"}
    ]});
    call_tool(&mock, &mut agent, &session, "todowrite", second).await;
    let now = stored(&env, &session);
    assert_eq!(now.as_array().unwrap().len(), 2);
    assert_eq!(now[0]["id"], first[1]["id"], "matched by content");
    assert_eq!(now[1]["id"], first[2]["id"], "matched by id");
    let plans = agent.updates_of("plan");
    assert_eq!(plans.len(), 2);
    let contents: Vec<&str> = plans[1]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["Fix the off-by-one", "Add two regression tests"]);
}

#[tokio::test]
async fn invalid_input_is_a_tool_error_and_leaves_the_list_alone() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    call_tool(&mock, &mut agent, &session, "todowrite", all_kinds()).await;
    let before = stored(&env, &session);
    for (bad, expected) in [
        (
            json!({"todos": [{"content": "x", "status": "done", "priority": "high"}]}),
            "unknown variant `done`",
        ),
        (
            json!({"todos": [{"status": "pending", "priority": "high"}]}),
            "missing field `content`",
        ),
        (
            json!({"todos": "not a list"}),
            "`todos` must be an array of items, not a string",
        ),
        (json!({}), "todowrite needs `todos`"),
    ] {
        let (_, result) = call_tool(&mock, &mut agent, &session, "todowrite", bad).await;
        let text = result["content"].as_str().unwrap();
        assert!(text.contains(expected), "{text}");
    }
    assert_eq!(stored(&env, &session), before);
    assert_eq!(
        agent.updates_of("plan").len(),
        1,
        "no plan for a failed write"
    );
}

#[tokio::test]
async fn load_and_resume_send_the_plan_and_load_replays_the_calls() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    call_tool(&mock, &mut agent, &session, "todowrite", all_kinds()).await;
    let live_plan = agent.updates_of("plan")[0].clone();
    agent.shutdown().await;

    let mut loaded = env.spawn();
    loaded.initialize().await;
    loaded
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert_eq!(loaded.updates_of("plan"), std::slice::from_ref(&live_plan));
    let replayed = loaded.updates_of("tool_call");
    assert_eq!(replayed[0]["title"], "4 todos");
    assert_eq!(replayed[0]["kind"], "think");
    assert_eq!(replayed[0]["status"], "completed");
    // The plan comes after the replayed history.
    assert_eq!(
        loaded.updates.last().unwrap()["update"]["sessionUpdate"],
        "plan"
    );
    loaded.shutdown().await;

    let mut resumed = env.spawn();
    resumed.initialize().await;
    resumed
        .request(
            "session/resume",
            json!({"sessionId": session, "cwd": env.project}),
        )
        .await;
    // Nothing for the session before resume's answer (a client keeps its prompt read-only
    // until then); the plan follows it, and nothing of the history is replayed.
    assert!(resumed.updates.is_empty(), "{:?}", resumed.updates);
    resumed
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "plan")
        .await;
    assert_eq!(resumed.updates_of("plan"), [live_plan]);
    let kinds: Vec<&str> = resumed
        .updates
        .iter()
        .map(|u| u["update"]["sessionUpdate"].as_str().unwrap())
        .collect();
    assert!(
        kinds
            .iter()
            .all(|k| matches!(*k, "plan" | "available_commands_update" | "usage_update")),
        "resume replays nothing: {kinds:?}"
    );
}

#[tokio::test]
async fn the_extension_request_returns_the_list() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let response = agent
        .request("_tandem/session/todo", json!({"sessionId": session}))
        .await;
    assert_eq!(response["result"], json!({"todos": []}));
    call_tool(&mock, &mut agent, &session, "todowrite", all_kinds()).await;
    let response = agent
        .request("_tandem/session/todo", json!({"sessionId": session}))
        .await;
    assert_eq!(response["result"]["todos"], stored(&env, &session));
    let missing = agent
        .request(
            "_tandem/session/todo",
            json!({"sessionId": "01JZZZZZZZZZZZZZZZZZZZZZZZ"}),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32002);
}

#[tokio::test]
async fn the_last_complete_write_survives_a_sigkill() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    call_tool(&mock, &mut agent, &session, "todowrite", all_kinds()).await;
    let before = stored(&env, &session);
    // A second turn is killed mid-stream, before its own todowrite could run.
    mock.push(openai_text(&["updating ", "the plan"], "stop").hang_after(2));
    agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["content"]["text"] == "updating ")
        .await;
    agent.child.start_kill().unwrap();
    agent.child.wait().await.unwrap();

    let mut fresh = env.spawn();
    fresh.initialize().await;
    let response = fresh
        .request("_tandem/session/todo", json!({"sessionId": session}))
        .await;
    assert_eq!(response["result"]["todos"], before);
}
