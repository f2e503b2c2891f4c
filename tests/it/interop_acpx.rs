//! Interop with an ACP client we did not write: the npm `acpx` client (installed by
//! `.ci/install-acpx`) drives the real binary through a turn with a tool call.

use std::path::PathBuf;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{MockLlm, TestEnv};
use serde_json::Value;

/// `acpx` from `TANDEM_ACPX`, or where `.ci/install-acpx` puts it.
fn acpx() -> Option<PathBuf> {
    let path = std::env::var_os("TANDEM_ACPX")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/cache/npm/node_modules/.bin/acpx")
        });
    path.exists().then_some(path)
}

/// Runs `acpx exec` against the binary in `env` and returns the JSON-RPC trace it printed.
async fn run_acpx(env: &TestEnv, prompt: &str) -> Option<Vec<Value>> {
    let Some(acpx) = acpx() else {
        if std::env::var_os("TANDEM_SKIP_INTEROP").is_some() {
            eprintln!("skipped: acpx is not installed and TANDEM_SKIP_INTEROP is set");
            return None;
        }
        panic!("acpx is not installed: run `bash .ci/install-acpx` (or set TANDEM_SKIP_INTEROP=1)");
    };

    // acpx needs Node 22, which its install put beside it.
    let bin_dir = acpx.parent().unwrap().to_owned();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let agent = format!("{} acp", env!("CARGO_BIN_EXE_tandem"));
    let output = tokio::process::Command::new(&acpx)
        .args([
            "--cwd",
            env.project.to_str().unwrap(),
            "--format",
            "json",
            "--approve-all",
        ])
        .args(["--timeout", "60", "--agent", &agent, "exec", prompt])
        .env("PATH", path)
        .env("HOME", env.root.path())
        .env("TANDEM_DATA_DIR", &env.data)
        .env("TANDEM_CONFIG_DIR", &env.config_dir)
        .output()
        .await
        .expect("acpx runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "acpx failed: {}\nstdout:\n{stdout}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Some(
        stdout
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acpx_runs_a_turn_with_a_tool_call() {
    let mock = MockLlm::start().await;
    mock.push(openai_tool_call("call_x", "list", &["{\"path\": \".\"}"]));
    mock.push(openai_text(&["The project has ", "a README."], "stop"));
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let Some(messages) = run_acpx(&env, "What is in this project?").await else {
        return;
    };
    let updates: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "session/update")
        .map(|m| &m["params"]["update"])
        .collect();
    let tool_call = updates
        .iter()
        .find(|u| u["sessionUpdate"] == "tool_call")
        .expect("acpx saw the tool call");
    assert_eq!(tool_call["toolCallId"], "call_x");
    assert_eq!(tool_call["kind"], "search");
    assert!(
        updates
            .iter()
            .any(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed")
    );
    let text: String = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert_eq!(text, "The project has a README.");
    let prompt_id = messages
        .iter()
        .find(|m| m["method"] == "session/prompt")
        .map(|m| m["id"].clone())
        .expect("acpx sent a prompt");
    let answer = messages
        .iter()
        .find(|m| m["id"] == prompt_id && m.get("result").is_some())
        .expect("the prompt was answered");
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acpx_reviews_edits_through_fs_and_runs_bash_in_its_terminal() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let file = env.project.join("a.txt");
    std::fs::write(&file, "one\ntwo\n").unwrap();
    let edit =
        serde_json::json!({"filePath": "a.txt", "oldString": "two", "newString": "2"}).to_string();
    mock.push(openai_tool_call("call_edit", "edit", &[&edit]));
    let bash = serde_json::json!({"command": "echo from-terminal"}).to_string();
    mock.push(openai_tool_call("call_bash", "bash", &[&bash]));
    mock.push(openai_text(&["Done."], "stop"));
    let Some(messages) = run_acpx(&env, "Edit and run").await else {
        return;
    };
    let method = |m: &Value, name: &str| m["method"] == name;
    // The edit read the editor's view of the file and wrote it once, through the editor.
    assert!(
        messages
            .iter()
            .any(|m| method(m, "fs/read_text_file")
                && m["params"]["path"] == serde_json::json!(file))
    );
    let writes: Vec<&Value> = messages
        .iter()
        .filter(|m| method(m, "fs/write_text_file"))
        .collect();
    assert_eq!(writes.len(), 1, "exactly one write per edit");
    assert_eq!(writes[0]["params"]["content"], "one\n2\n");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\n2\n");
    // The command ran in the editor's terminal, which the tool call shows, and was released.
    let create = messages
        .iter()
        .find(|m| method(m, "terminal/create"))
        .expect("terminal/create");
    // Sandboxed: the terminal runs `tandem sandbox-exec`, which enters the sandbox and execs
    // the shell with the command.
    let args = create["params"]["args"].as_array().unwrap();
    assert_eq!(args[0], "sandbox-exec", "{create}");
    assert_eq!(
        args[args.len() - 2..],
        [
            serde_json::json!("-c"),
            serde_json::json!("echo from-terminal")
        ]
    );
    assert!(
        create["params"]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("/tandem")),
        "{create}"
    );
    let created = messages
        .iter()
        .find(|m| m["id"] == create["id"] && m.get("result").is_some())
        .expect("the terminal was created");
    let terminal_id = created["result"]["terminalId"].clone();
    assert!(
        messages
            .iter()
            .any(|m| method(m, "terminal/release") && m["params"]["terminalId"] == terminal_id)
    );
    assert!(messages.iter().any(|m| method(m, "session/update")
        && m["params"]["update"]["toolCallId"] == "call_bash"
        && m["params"]["update"]["content"][0]
            == serde_json::json!({"type": "terminal", "terminalId": terminal_id})));
    let result = mock.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(result["content"], "from-terminal\n");
}
