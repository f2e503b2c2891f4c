//! Shared test support: the mock model provider and the raw ACP driver.
#![allow(dead_code, unused_imports)]

pub mod acp;
pub mod crash;
pub mod editor;
pub mod mock_llm;
pub mod mock_search;
pub mod oauth_server;
pub mod pty;

pub use acp::{AcpProcess, TestEnv};
pub use mock_llm::{MockLlm, MockResponse};

/// A mock provider speaking `api`, a project configured for it, a running agent after
/// `initialize`, and a new session in the project.
pub async fn start(api: &str) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, api));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// Queues a call of `tool` with `args`, then a closing answer, and runs a prompt. Returns the
/// prompt's response and the tool result the model was sent back (the last message of the
/// second request).
pub async fn call_tool(
    mock: &MockLlm,
    agent: &mut AcpProcess,
    session: &str,
    tool: &str,
    args: serde_json::Value,
) -> (serde_json::Value, serde_json::Value) {
    let call_id = format!("call_{}", mock.requests().len());
    mock.push(mock_llm::openai_tool_call(
        &call_id,
        tool,
        &[&args.to_string()],
    ));
    mock.push(mock_llm::openai_text(&["done"], "stop"));
    let before = mock.requests().len();
    let response = agent.prompt(session, &format!("use {tool}")).await;
    let requests = mock.requests();
    let result = requests
        .get(before + 1)
        .and_then(|r| {
            r.body["messages"]
                .as_array()
                .and_then(|m| m.last().cloned())
        })
        .unwrap_or_default();
    (response, result)
}

/// The `tool_call_update`s for one call, in order.
pub fn call_updates(agent: &AcpProcess, call_id: &str) -> Vec<serde_json::Value> {
    agent
        .updates_of("tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == call_id)
        .collect()
}

/// Like `start`, with `extra` merged into the project config (e.g. a `permission` block).
pub async fn start_with(
    api: &str,
    extra: serde_json::Value,
) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, api);
    if let (Some(config), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
        for (key, value) in extra {
            config.insert(key.clone(), value.clone());
        }
    }
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// Runs every call as one step of a single prompt (one mock answer per call, then a closing
/// text); returns what the model was told of each call.
pub async fn run_all(
    mock: &MockLlm,
    agent: &mut AcpProcess,
    session: &str,
    calls: &[(&str, serde_json::Value)],
) -> Vec<String> {
    for (index, (tool, args)) in calls.iter().enumerate() {
        mock.push(mock_llm::openai_tool_call(
            &format!("call_{index}"),
            tool,
            &[&args.to_string()],
        ));
    }
    mock.push(mock_llm::openai_text(&["done"], "stop"));
    let before = mock.requests().len();
    let response = agent.prompt(session, "go").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    (0..calls.len())
        .map(|index| {
            requests[before + index + 1].body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
                .unwrap_or_default()
        })
        .collect()
}

/// One turn: the model writes `file` with "`text`\n" (a `write` call), then says "done".
pub async fn write_turn(
    mock: &MockLlm,
    agent: &mut AcpProcess,
    session: &str,
    text: &str,
    file: &str,
) {
    let args = serde_json::json!({"filePath": file, "content": format!("{text}\n")});
    mock.push(mock_llm::openai_tool_call(
        &format!("call_{text}"),
        "write",
        &[&args.to_string()],
    ));
    mock.push(mock_llm::openai_text(&["done"], "stop"));
    let response = agent.prompt(session, text).await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
}

/// `value` without Anthropic's `cache_control` marks, to compare request content alone.
pub fn without_cache_marks(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(k, _)| *k != "cache_control")
            .map(|(k, v)| (k.clone(), without_cache_marks(v)))
            .collect(),
        serde_json::Value::Array(items) => items.iter().map(without_cache_marks).collect(),
        other => other.clone(),
    }
}

/// The path of a test example (`examples/<name>.rs`). Every test example is built at once, the
/// first time one is wanted: `cargo test` builds examples only as test harnesses, and one
/// nested `cargo build` costs far less than one per example.
pub fn example_path(name: &str) -> std::path::PathBuf {
    static BUILT: std::sync::Once = std::sync::Once::new();
    let tandem = std::path::PathBuf::from(env!("CARGO_BIN_EXE_tandem"));
    let path = tandem.parent().unwrap().join("examples").join(name);
    BUILT.call_once(|| {
        let status = std::process::Command::new(env!("CARGO"))
            .args([
                "build",
                "--example",
                "mcp_test_server",
                "--example",
                "acp_test_agent",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "the test examples build");
    });
    assert!(path.exists(), "{} was built", path.display());
    path
}
