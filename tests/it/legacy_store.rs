//! A store written before tool results were typed (tests/fixtures/legacy-store, by the code at
//! 82742db) loads and replays exactly as that code replayed it, and a next prompt sends the
//! model the same history, except for the two fixes issue 10 asked for that show on replay,
//! applied below to the recorded expectation so that everything else is compared value for
//! value (the raw output too: an old call's metadata is kept as it was written).

use crate::support::mock_llm::anthropic_text;
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

fn fixture() -> Value {
    let text = include_str!("../fixtures/legacy-store/expected.json");
    serde_json::from_str(text).unwrap()
}

/// The fixture's store in a fresh data dir, and an agent whose config (named by
/// `TANDEM_CONFIG`, since the stored project no longer exists) serves the model from `mock`.
fn agent(env: &TestEnv, mock: &MockLlm) -> AcpProcess {
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/legacy-store/tandem.db"
        ),
        env.db_path(),
    )
    .unwrap();
    let config = env.root.path().join("tandem-test.json");
    let mut settings = TestEnv::mock_config(&mock.url, "anthropic");
    settings["permission"] = json!({"bash": {"*": "allow", "rm *": "ask", "curl *": "deny"}});
    std::fs::write(&config, settings.to_string()).unwrap();
    env.spawn_with(&[("TANDEM_CONFIG", config.to_str().unwrap())])
}

/// What the old code sent, with this issue's fixes: a new file's diff says `"oldText": null`
/// (a client drew no diff without it), and the todo tools are kind `think`.
fn with_fixes(mut updates: Value) -> Value {
    for update in updates.as_array_mut().unwrap() {
        let update = &mut update["update"];
        if update["sessionUpdate"] == "tool_call" {
            if update["toolCallId"] == "t_todo" {
                assert!(update.get("kind").is_none(), "`other` was left out");
                update["kind"] = json!("think");
            }
            for item in update["content"].as_array_mut().into_iter().flatten() {
                if item["type"] == "diff" && item.get("oldText").is_none() {
                    item["oldText"] = Value::Null;
                }
            }
        }
    }
    updates
}

#[tokio::test]
async fn an_old_store_replays_as_before_and_continues() {
    let expected = fixture();
    let (session, child) = (
        expected["session"].as_str().unwrap(),
        expected["child"].as_str().unwrap(),
    );
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut agent = agent(&env, &mock);
    agent.initialize().await;

    let load = agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": "/tmp/tandem-legacy-fixture/project", "mcpServers": []}),
        )
        .await;
    assert_eq!(load["result"], expected["load"], "{load}");
    // After the answer: the commands, then the usage meter of the last model call.
    agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "usage_update")
        .await;
    let (announced, replay): (Vec<Value>, Vec<Value>) = std::mem::take(&mut agent.updates)
        .into_iter()
        .partition(|u| {
            ["available_commands_update", "usage_update"]
                .contains(&u["update"]["sessionUpdate"].as_str().unwrap_or_default())
        });
    assert_eq!(Value::Array(replay), with_fixes(expected["replay"].clone()));
    assert_eq!(
        announced[0]["update"]["sessionUpdate"],
        "available_commands_update"
    );
    assert_eq!(announced[1]["update"]["used"], 265);
    assert_eq!(announced[1]["update"]["size"], 100000);

    let load = agent
        .request(
            "session/load",
            json!({"sessionId": child, "cwd": "/tmp/tandem-legacy-fixture/project", "mcpServers": []}),
        )
        .await;
    assert_eq!(load["result"], expected["childLoad"]);
    agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "available_commands_update")
        .await;
    let replay: Vec<Value> = std::mem::take(&mut agent.updates)
        .into_iter()
        .filter(|u| {
            !["available_commands_update", "usage_update"]
                .contains(&u["update"]["sessionUpdate"].as_str().unwrap_or_default())
        })
        .collect();
    assert_eq!(
        Value::Array(replay),
        with_fixes(expected["childReplay"].clone())
    );

    // The image a tool read long ago still reaches the model; the history is the same.
    mock.push(anthropic_text("Recall.", &["All clear."], "end_turn"));
    let response = agent.prompt(session, "Anything left?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let sent = &mock.requests()[0].body["messages"];
    assert_eq!(
        &crate::support::without_cache_marks(sent),
        &expected["nextRequestMessages"]
    );
    assert!(sent.to_string().contains(r#""media_type":"image/png""#));
}

#[tokio::test]
async fn the_fixture_holds_what_the_test_relies_on() {
    // The old shape, as written: typed fields absent, everything inside metadata.
    let conn = rusqlite::Connection::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/legacy-store/tandem.db"
    ))
    .unwrap();
    let mut stmt = conn
        .prepare("SELECT data FROM part WHERE data LIKE '%\"type\":\"tool\"%'")
        .unwrap();
    let calls: Vec<Value> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|d| serde_json::from_str(&d.unwrap()).unwrap())
        .collect();
    let by_id = |id: &str| {
        calls
            .iter()
            .find(|c| c["call_id"] == id)
            .unwrap_or_else(|| panic!("{id} in the fixture"))
            .clone()
    };
    let write = by_id("t_write");
    assert!(write["state"]["metadata"]["diffs"][0]["oldText"].is_null());
    assert!(write["state"].get("diffs").is_none());
    assert!(by_id("t_image")["state"]["metadata"]["attachments"].is_array());
    assert_eq!(by_id("t_term")["state"]["metadata"]["terminalId"], "term-1");
    assert!(by_id("t_term").get("kind").is_none());
}
