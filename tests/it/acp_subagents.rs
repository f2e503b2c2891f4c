//! Any ACP agent as a subagent, through the binary: another `tandem acp` (on the same mock
//! provider) configured with an `acp` block runs a task in a child session the editor sees
//! nested; its file writes and commands come back to the parent, which judges them under its
//! own rules, records them for `/undo`, and ends its process when the work is done.

use std::path::Path;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv, call_updates};
use serde_json::{Value, json};

fn task(description: &str, prompt: &str, agent: &str) -> String {
    json!({"description": description, "prompt": prompt, "subagent_type": agent}).to_string()
}

/// A project whose `inner` subagent is another Tandem over ACP, with its own data folder,
/// plus `extra` config.
async fn start_with_inner(extra: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    let inner_data = env.root.path().join("inner-data");
    config["agent"] = json!({
        "inner": {
            "description": "Another Tandem, over ACP",
            "mode": "subagent",
            "acp": {
                "command": [env!("CARGO_BIN_EXE_tandem"), "acp"],
                "env": {"TANDEM_DATA_DIR": inner_data.display().to_string()}
            }
        }
    });
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// The tool results the parent's model received in its request `index`.
fn tool_results(mock: &MockLlm, index: usize) -> Vec<String> {
    mock.requests()[index].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

/// Processes whose command line mentions `needle`.
fn processes_with(needle: &Path) -> Vec<String> {
    let needle = needle.display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("environ")).ok())
        .map(|env| String::from_utf8_lossy(&env).into_owned())
        .filter(|env| env.contains(&needle))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tandem_runs_a_task_shown_nested_and_its_write_is_checked_and_undoable() {
    let (mock, env, mut agent, session) = start_with_inner(json!({})).await;
    mock.push(openai_tool_call(
        "call_task",
        "task",
        &[&task("Write the note", "INNER: write note.txt", "inner")],
    ));
    mock.push_for(
        "INNER: write note.txt",
        openai_tool_call(
            "w1",
            "write",
            &[r#"{"filePath": "note.txt", "content": "from the inner agent\n"}"#],
        ),
    );
    mock.push_for(
        "INNER: write note.txt",
        openai_text(&["Wrote note.txt."], "stop"),
    );
    mock.push(openai_text(&["The inner agent wrote it."], "stop"));
    let response = agent.prompt(&session, "have inner write a note").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("note.txt")).unwrap(),
        "from the inner agent\n"
    );

    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    let child_id = children["result"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    // The inner Tandem's own words, its note on the files it changed included.
    let results = tool_results(&mock, 3);
    assert_eq!(
        results,
        [format!(
            "task_id: {child_id} (for resuming to continue this task if needed)\n\n<task_result>\nWrote note.txt.\n\n1 file changed (+1 −0). /undo reverts this turn.\n\n</task_result>"
        )]
    );
    // The inner agent's write call is shown nested under the task, with its diff.
    let nested = format!("{child_id}/w1");
    let calls = agent.updates_of("tool_call");
    let shown = calls
        .iter()
        .find(|c| c["toolCallId"] == nested.as_str())
        .unwrap_or_else(|| panic!("the inner call is shown: {calls:#?}"));
    assert_eq!(
        shown["_meta"]["tandem"],
        json!({"parentToolCallId": "call_task", "childSessionId": child_id})
    );
    let done = call_updates(&agent, &nested);
    assert!(
        done.iter().any(|u| u["status"] == "completed"
            && u["content"][0]["type"] == "diff"
            && u["content"][0]["newText"] == "from the inner agent\n"),
        "{done:#?}"
    );
    assert!(agent.agent_text().contains("The inner agent wrote it."));

    // `/undo` in the parent takes the inner agent's file away.
    let undone = agent.prompt(&session, "/undo").await;
    assert_eq!(undone["result"]["stopReason"], "end_turn", "{undone}");
    assert!(!env.project.join("note.txt").exists());

    // Closing the editor ends the inner agent's process.
    let inner_data = env.root.path().join("inner-data");
    assert!(
        !processes_with(&inner_data).is_empty(),
        "the inner agent runs"
    );
    agent.shutdown().await;
    let gone = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        processes_with(&inner_data).is_empty()
    });
    assert!(gone, "no inner agent is left");
}
