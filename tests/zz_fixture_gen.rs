//! One-off: writes tests/fixtures/legacy-store with the code as it stands (run with --ignored).
mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::mock_llm::{anthropic_text, anthropic_tool_use};
use support::{AcpProcess, MockLlm};

const ROOT: &str = "/tmp/tandem-legacy-fixture";

fn spawn(root: &Path, config: &Path) -> AcpProcess {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_tandem"));
    command
        .arg("acp")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root)
        .env("TANDEM_DATA_DIR", root.join("data"))
        .env("TANDEM_CONFIG_DIR", root.join("config"))
        .env("TANDEM_CONFIG", config)
        .env("TANDEM_LOG", "warn")
        .current_dir(root.join("project"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    support::acp::AcpProcess::start_command(command)
}

fn tool(mock: &MockLlm, id: &str, name: &str, input: Value) {
    mock.push(anthropic_tool_use(id, name, &[&input.to_string()]));
}

#[tokio::test]
#[ignore]
async fn write_the_legacy_fixture() {
    let root = Path::new(ROOT);
    let _ = std::fs::remove_dir_all(root);
    let project = root.join("project");
    for dir in ["project/src", "data", "config"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::write(project.join("src/greet.rs"), "fn greet() {\n    println!(\"hi\");\n}\n").unwrap();
    std::fs::write(project.join("src/a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::write(project.join("src/old.txt"), "old file\n").unwrap();
    // A 1x1 PNG.
    let png = [137u8, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196, 137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 156, 99, 248, 207, 192, 240, 31, 0, 5, 0, 1, 255, 137, 153, 61, 29, 0, 0, 0, 0, 73, 69, 78, 68, 174, 66, 96, 130];
    std::fs::write(project.join("logo.png"), png).unwrap();
    let mock = MockLlm::start().await;
    let config = root.join("tandem-test.json");
    std::fs::write(&config, json!({
        "model": "mock/test-model",
        "provider": {"mock": {"api": "anthropic",
            "options": {"baseURL": mock.url, "apiKey": "sk-test", "retryDelay": 20, "maxRetries": 2},
            "models": {"test-model": {"name": "Test Model", "limit": {"context": 100000, "output": 4096},
                                      "cost": {"input": 1.0, "output": 2.0}}}}},
        "permission": {"bash": {"*": "allow", "rm *": "ask", "curl *": "deny"}}
    }).to_string()).unwrap();

    let mut agent = spawn(root, &config);
    agent.editor = Some(Default::default());
    agent.initialize_with(json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true})).await;
    let session = agent.new_session(&project).await;

    tool(&mock, "t_edit", "edit", json!({"filePath": "src/greet.rs", "oldString": "\"hi\"", "newString": "\"hello\""}));
    tool(&mock, "t_write", "write", json!({"filePath": "NOTES.md", "content": "# Notes\nnew file\n"}));
    tool(&mock, "t_image", "read", json!({"filePath": "logo.png"}));
    tool(&mock, "t_term", "bash", json!({"command": "printf 'one\\ntwo\\n'", "description": "Print two lines"}));
    tool(&mock, "t_todo", "todowrite", json!({"todos": [
        {"content": "Greet properly", "status": "completed", "priority": "high"},
        {"content": "Write notes", "status": "in_progress", "priority": "medium"},
        {"content": "Port to Zig", "status": "cancelled", "priority": "low"}]}));
    tool(&mock, "t_missing", "read", json!({"filePath": "missing.txt"}));
    tool(&mock, "t_patch", "apply_patch", json!({"patchText": "*** Begin Patch\n*** Update File: src/a.txt\n alpha\n-beta\n+BETA\n*** Delete File: src/old.txt\n*** Add File: src/added.txt\n+added\n*** End Patch\n"}));
    tool(&mock, "t_task", "task", json!({"description": "Find notes", "prompt": "Where are the notes?", "subagent_type": "explore"}));
    mock.push_for("Where are the notes?", anthropic_tool_use("c_glob", "glob", &[r#"{"pattern": "*.md"}"#]));
    mock.push(anthropic_text("The glob found it.", &["NOTES.md is at the root."], "end_turn"));
    mock.push(anthropic_text("Everything went through.", &["Done: greeting fixed, notes written."], "end_turn"));
    let response = agent.prompt(&session, "Fix the greeting and take notes").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    // Turn 2: a person's image and resource; a rejected ask and a denied command.
    agent.permission_choice = Some("reject_once".into());
    tool(&mock, "t_rm", "bash", json!({"command": "rm -rf src", "description": "Remove src"}));
    tool(&mock, "t_curl", "bash", json!({"command": "curl http://127.0.0.1:9/x", "description": "Fetch"}));
    mock.push(anthropic_text("They said no.", &["I left src alone."], "end_turn"));
    let png64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
    let response = agent.request("session/prompt", json!({"sessionId": session, "prompt": [
        {"type": "text", "text": "Now clean up"},
        {"type": "image", "mimeType": "image/png", "data": png64},
        {"type": "resource", "resource": {"uri": "file:///tmp/tandem-legacy-fixture/project/src/a.txt", "mimeType": "text/plain", "text": "alpha\nBETA\n"}}
    ]})).await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let children = agent.request("_tandem/session/children", json!({"sessionId": session})).await;
    let child = children["result"]["sessions"][0]["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(agent.shutdown().await.code(), Some(0));
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/legacy-store");
    std::fs::create_dir_all(&out).unwrap();
    assert!(!root.join("data/tandem.db-wal").exists() || std::fs::metadata(root.join("data/tandem.db-wal")).unwrap().len() == 0);
    std::fs::copy(root.join("data/tandem.db"), out.join("tandem.db")).unwrap();

    // What the current code replays, and what a next prompt sends the model.
    let mut loaded = spawn(root, &config);
    loaded.initialize().await;
    let root_load = loaded.request("session/load", json!({"sessionId": session, "cwd": project, "mcpServers": []})).await;
    let root_updates = std::mem::take(&mut loaded.updates);
    let child_load = loaded.request("session/load", json!({"sessionId": child, "cwd": project, "mcpServers": []})).await;
    let child_updates = std::mem::take(&mut loaded.updates);
    mock.push(anthropic_text("Recall.", &["All clear."], "end_turn"));
    let before = mock.requests().len();
    let response = loaded.prompt(&session, "Anything left?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let history = mock.requests()[before].body["messages"].clone();
    assert_eq!(loaded.shutdown().await.code(), Some(0));

    let expected = json!({
        "session": session, "child": child,
        "load": root_load["result"], "childLoad": child_load["result"],
        "replay": root_updates, "childReplay": child_updates,
        "nextRequestMessages": history,
    });
    std::fs::write(out.join("expected.json"), serde_json::to_string_pretty(&expected).unwrap()).unwrap();
}
