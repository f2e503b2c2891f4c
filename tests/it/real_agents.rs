//! Real agents in front of the editor, through the binary, on the scripted model
//! (scripts/fixtures/scripted_model.py) on 127.0.0.1: Claude Code's ACP adapter, installed from
//! npm by `.ci/install-agents`, runs as the session's agent; its turn shows each call once, its
//! own write outside the workspace is refused by Tandem's sandbox, and `/undo` takes back what
//! it wrote.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use serde_json::{Value, json};

use crate::support::TestEnv;

/// The adapter `program` that `.ci/install-agents` installed; None (the test skipped) only
/// when interop tests may be skipped.
fn real_agent(program: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/cache/agents/node_modules/.bin")
        .join(program);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("TANDEM_SKIP_INTEROP").is_some(),
        "{} is missing: run `bash .ci/install-agents` (or set TANDEM_SKIP_INTEROP=1)",
        path.display()
    );
    None
}

/// The scripted model, serving `script` on a port of its own until dropped.
struct ScriptedModel {
    child: Child,
    url: String,
}

impl ScriptedModel {
    fn start(script: &Value, dir: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let file = dir.join("script.json");
        std::fs::write(&file, script.to_string()).unwrap();
        let model =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fixtures/scripted_model.py");
        let child = Command::new("python3")
            .arg(model)
            .arg(port.to_string())
            .arg(&file)
            .arg("--log")
            .arg(dir.join("model.log"))
            .spawn()
            .expect("python3 runs the scripted model");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_in_front_is_held_by_tandems_sandbox_and_undo() {
    let Some(adapter) = real_agent("claude-agent-acp") else {
        return;
    };
    let env = TestEnv::new();
    let hello = env.project.join("hello.txt");
    let outside = env.root.path().join("outside.txt");
    let script = json!({"title": "Greeting", "steps": [
        [{"text": "I'll create the file."},
         {"tool": "Write", "input": {"file_path": hello, "content": "hello\n"}}],
        [{"tool": "Write", "input": {"file_path": outside, "content": "escaped\n"}}],
        [{"tool": "Edit", "input": {"file_path": hello, "old_string": "hello", "new_string": "hello, world"}}],
        [{"tool": "Bash", "input": {"command": "cat hello.txt", "description": "Show it"}}],
        [{"text": "Done."}]
    ]});
    let model = ScriptedModel::start(&script, env.root.path());
    // Claude Code asks before each write and command (its permission requests are Tandem's to
    // answer), rather than judging them with a classifier of its own.
    let claude = env.root.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        json!({"permissions": {"defaultMode": "default"}}).to_string(),
    )
    .unwrap();
    env.write_project_config(&json!({
        "agent": {"claude": {"mode": "primary", "acp": {
            "command": [adapter],
            "env": {"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-test",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1"},
            "startup_timeout": 120}}},
        // Tandem's rules let every call through: what stops the outside write is the sandbox.
        "permission": {"edit": "allow", "bash": "allow", "external_directory": "allow"}
    }));
    let mut agent = env.spawn_acp(&["--agent", "claude"], &[]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent
        .prompt(&session, "Create hello.txt with a greeting")
        .await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), "hello, world\n");
    assert!(
        !outside.exists(),
        "the sandbox refuses the agent's own write outside"
    );
    let text = agent.agent_text();
    assert_eq!(text.matches("I'll create the file.").count(), 1, "{text}");
    assert_eq!(text.matches("Done.").count(), 1, "{text}");
    let calls = agent.updates_of("tool_call");
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["toolCallId"].as_str().unwrap())
        .collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids.len(), 4, "each call shown once: {calls:#?}");
    assert_eq!(unique, ids);
    let updates = agent.updates_of("tool_call_update");
    let mut failed: Vec<&Value> = updates.iter().filter(|u| u["status"] == "failed").collect();
    failed.dedup_by_key(|u| u["toolCallId"].clone());
    assert_eq!(failed.len(), 1, "{updates:#?}");
    assert_eq!(failed[0]["toolCallId"], ids[1]);
    assert!(
        failed[0]["rawOutput"]["error"]
            .as_str()
            .unwrap()
            .contains("EACCES: permission denied"),
        "{failed:#?}"
    );

    agent.prompt(&session, "/undo").await;
    assert!(!hello.exists(), "/undo takes back the agent's own writes");
    agent.shutdown().await;
    drop(model);
}
