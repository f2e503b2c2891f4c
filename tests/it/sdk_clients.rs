//! Clients we did not write: the official Python SDK (PyPI `agent-client-protocol`, fs and
//! terminal capabilities on) and the official TypeScript SDK (npm `@agentclientprotocol/sdk`,
//! both off) each drive the real binary through a streamed answer, tool calls behind
//! permission prompts, the plan, cancel, and load in a new process; their schemas validate
//! every message. Installed by `.ci/install-sdk-clients`.

use std::path::PathBuf;
use std::time::Duration;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

fn cache() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/cache")
}

/// The program, or `None` (with the test skipped) only when interop tests may be skipped.
fn installed(path: PathBuf) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("TANDEM_SKIP_INTEROP").is_some(),
        "{} is missing: run `bash .ci/install-sdk-clients` (or set TANDEM_SKIP_INTEROP=1)",
        path.display()
    );
    None
}

/// The mock's answers, in the order the client's prompts ask for them.
fn script(mock: &MockLlm, project: &std::path::Path) {
    mock.push(openai_text(&["Hel", "lo ", "there"], "stop"));
    let notes = project.join("notes.txt");
    mock.push(openai_tool_call(
        "c1",
        "write",
        &[&json!({"filePath": notes, "content": "remember the milk\n"}).to_string()],
    ));
    mock.push(openai_tool_call(
        "c2",
        "bash",
        &[r#"{"command": "cat notes.txt", "description": "Show the notes"}"#],
    ));
    mock.push(openai_tool_call(
        "c3",
        "todowrite",
        &[r#"{"todos": [{"id": "1", "content": "Write notes", "status": "completed", "priority": "high"}, {"id": "2", "content": "Run them", "status": "in_progress", "priority": "medium"}]}"#],
    ));
    mock.push(openai_text(&["All done."], "stop"));
    let words: Vec<String> = (0..200).map(|i| format!("word{i} ")).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    mock.push(openai_text(&words, "stop").paced(Duration::from_millis(40)));
}

/// Runs `program args…` with the test's environment and returns its JSON summary.
async fn drive(env: &TestEnv, program: &std::path::Path, args: &[&str]) -> Value {
    let mut command = tokio::process::Command::from(env.program(program, args));
    command.kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(180), command.output())
        .await
        .expect("the client finishes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap_or("null"))
        .unwrap_or_else(|_| {
            panic!(
                "no summary; stdout:\n{stdout}\nstderr:\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
    assert!(
        output.status.success(),
        "the client found problems: {}\nstderr:\n{}",
        summary["problems"],
        String::from_utf8_lossy(&output.stderr)
    );
    summary
}

async fn project() -> (MockLlm, TestEnv) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"edit": "ask", "bash": "ask"});
    env.write_project_config(&config);
    script(&mock, &env.project);
    (mock, env)
}

/// What both clients must have seen.
fn common_checks(summary: &Value, env: &TestEnv) {
    assert_eq!(summary["answer"], "Hello there");
    assert!(summary["answer_chunks"].as_u64().unwrap() >= 2, "streamed");
    let titles: Vec<&str> = summary["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles.len(), 2, "{titles:?}");
    assert!(titles[0].contains("notes.txt"), "{titles:?}");
    assert!(titles[1].contains("cat notes.txt"), "{titles:?}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("notes.txt")).unwrap(),
        "remember the milk\n"
    );
    let statuses: Vec<&str> = summary["tool_statuses"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        statuses.iter().filter(|s| **s == "completed").count() >= 3,
        "{statuses:?}"
    );
    let plan: Vec<Value> = summary["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| json!({"content": e["content"], "priority": e["priority"], "status": e["status"]}))
        .collect();
    assert_eq!(
        json!(plan),
        json!([
            {"content": "Write notes", "priority": "high", "status": "completed"},
            {"content": "Run them", "priority": "medium", "status": "in_progress"}
        ])
    );
    assert_eq!(summary["cancel_stop"], "cancelled");
    let replayed_user = summary["replayed_user"].as_str().unwrap();
    assert!(replayed_user.contains("hello"), "{replayed_user}");
    assert!(replayed_user.contains("write notes and run them"));
    let replayed_agent = summary["replayed_agent"].as_str().unwrap();
    assert!(
        replayed_agent.starts_with("Hello there"),
        "{replayed_agent}"
    );
    assert!(replayed_agent.contains("All done."), "{replayed_agent}");
}

#[tokio::test]
async fn the_python_sdk_drives_tandem_with_fs_and_terminal() {
    let Some(python) = installed(cache().join("py/bin/python")) else {
        return;
    };
    let (_mock, env) = project().await;
    let client = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/python_client.py");
    let summary = drive(
        &env,
        &python,
        &[
            client.to_str().unwrap(),
            env!("CARGO_BIN_EXE_tandem"),
            env.project.to_str().unwrap(),
        ],
    )
    .await;
    common_checks(&summary, &env);
    // The file went through the client's fs, the command through its terminal.
    assert_eq!(
        summary["writes"],
        json!([[env.project.join("notes.txt"), "remember the milk\n"]])
    );
    let commands = summary["commands"].as_array().unwrap();
    assert_eq!(commands.len(), 1, "{commands:?}");
    assert!(
        commands[0].as_str().unwrap().contains("cat notes.txt"),
        "{commands:?}"
    );
    assert_eq!(summary["terminal_content"], true);
}

#[tokio::test]
async fn the_typescript_sdk_drives_tandem_without_fs_or_terminal() {
    let Some(node) = installed(cache().join("npm/node_modules/.bin/node")) else {
        return;
    };
    let Some(sdk) = installed(cache().join("sdk-ts/node_modules/@agentclientprotocol/sdk")) else {
        return;
    };
    let (_mock, env) = project().await;
    let client =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/typescript_client.mjs");
    let summary = drive(
        &env,
        &node,
        &[
            client.to_str().unwrap(),
            env!("CARGO_BIN_EXE_tandem"),
            env.project.to_str().unwrap(),
            sdk.to_str().unwrap(),
        ],
    )
    .await;
    common_checks(&summary, &env);
    // Without the client's fs and terminal, Tandem wrote and ran them itself.
    assert_eq!(summary["fs_calls"], 0);
    let output = summary["bash_output"].as_str().unwrap();
    assert!(output.contains("remember the milk"), "{output}");
}
