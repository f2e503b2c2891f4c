//! JetBrains Air's bundle through the binary, for a client that declares it: the capabilities
//! in `initialize`, a kind on each mode and approval level, a report of the files a turn
//! changed when the prompt asks for one (before the answer), and a record of a turn that
//! failed; a client that does not declare it gets none of it.

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, MockResponse, TestEnv};
use serde_json::{Value, json};

fn air_client() -> Value {
    json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false,
           "_meta": {"jetbrains": {"air": {"version": 1,
               "capabilities": ["modeKinds", "agentFileChangeReport", "sessionFailure"]}}}})
}

fn kind(entry: &Value) -> &Value {
    &entry["_meta"]["jetbrains"]["air"]["kind"]
}

async fn start(capabilities: Value) -> (MockLlm, TestEnv, AcpProcess, Value, Value) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    let init = agent.initialize_with(capabilities).await;
    let opened = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    (mock, env, agent, init, opened)
}

#[tokio::test]
async fn an_air_client_gets_capabilities_kinds_a_change_report_and_a_failure_record() {
    let (mock, env, mut agent, init, opened) = start(air_client()).await;
    assert_eq!(
        init["result"]["_meta"]["jetbrains"]["air"],
        json!({"version": 1,
               "capabilities": ["modeKinds", "agentFileChangeReport", "sessionFailure"]})
    );
    let modes = &opened["result"]["modes"]["availableModes"];
    assert_eq!(kind(&modes[0]), "standard", "{modes}");
    assert_eq!(kind(&modes[1]), "plan", "{modes}");
    let approval = opened["result"]["configOptions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "approval")
        .unwrap();
    let kinds: Vec<&Value> = approval["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(kind)
        .collect();
    assert_eq!(kinds, ["standard", "auto_review", "full_access", "plan"]);
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();

    let write = json!({"filePath": "a.txt", "content": "a\n"}).to_string();
    mock.push(openai_tool_call("c1", "write", &[&write]));
    mock.push(openai_text(&["Done."], "stop"));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "write a"}],
                   "_meta": {"jetbrains": {"air": {"agentFileChangeReportRequest":
                       {"version": 1, "requestId": "r1"}}}}}),
        )
        .await;
    let done = agent.response(prompt).await;
    assert_eq!(done["result"]["stopReason"], "end_turn");
    let reports: Vec<Value> = agent
        .updates_of("session_info_update")
        .into_iter()
        .filter_map(|u| {
            u["_meta"]["jetbrains"]["air"]
                .get("agentFileChangeReport")
                .cloned()
        })
        .collect();
    assert_eq!(
        reports,
        [
            json!({"version": 1, "requestId": "r1", "status": "reported",
                "paths": [env.project.join("a.txt")], "declaredComplete": true,
                "truncated": false})
        ],
        "one report, before the answer"
    );

    mock.push(MockResponse::status(
        400,
        r#"{"error":{"message":"invalid request: bad things"}}"#,
    ));
    let failed = agent.prompt(&session, "again").await;
    assert!(failed.get("error").is_some(), "{failed}");
    let failure = agent
        .updates_of("session_info_update")
        .into_iter()
        .find_map(|u| {
            u["_meta"]["jetbrains"]["air"]
                .get("sessionFailure")
                .cloned()
        })
        .expect("a failure record");
    assert_eq!(failure["severity"], "error");
    assert_eq!(failure["revision"], 1);
    assert!(
        failure["details"].as_str().unwrap().contains("bad things"),
        "{failure}"
    );
}

#[tokio::test]
async fn a_client_without_air_gets_none_of_it() {
    let capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false},
                              "terminal": false});
    let (_mock, _env, _agent, init, opened) = start(capabilities).await;
    assert!(init["result"]["_meta"].get("jetbrains").is_none(), "{init}");
    let text = opened.to_string();
    assert!(!text.contains("jetbrains"), "{text}");
}

#[tokio::test]
async fn the_providers_rate_limits_come_with_the_answer_as_the_shared_quota_key() {
    let (mock, _env, mut agent, _init, opened) = start(air_client()).await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    mock.push(
        openai_text(&["Hi."], "stop")
            .header("x-ratelimit-limit-requests", "100")
            .header("x-ratelimit-remaining-requests", "75")
            .header("x-ratelimit-reset-requests", "60s"),
    );
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let done = agent.prompt(&session, "hello").await;
    let limits = &done["result"]["_meta"]["quota"]["rateLimits"];
    assert_eq!(limits[0]["limitId"], "requests", "{done}");
    assert_eq!(limits[0]["primary"]["usedPercent"], 25.0);
    let resets = limits[0]["primary"]["resetsAt"].as_u64().unwrap();
    assert!(
        (before + 55..=before + 65).contains(&resets),
        "{resets} vs {before}"
    );
}
