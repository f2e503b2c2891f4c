//! Claude Code in front of the editor when things go wrong, through the binary, on the
//! scripted model: its write under a deny rule of Tandem's is refused; killed in the middle of
//! a turn, it is told and the next prompt goes on with it; out of its usage (a 429 with a reset
//! hours away), the session is handed to Tandem's own loop with the conversation so far.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::real_agents::{ScriptedModel, real_agent};
use crate::support::{AcpProcess, TestEnv};

/// Claude Code's ACP adapter set up in `env` on the scripted model at `url`, under `rules`
/// (with `extra` keys of Tandem's config); asking Tandem before each write and command.
fn claude_in(env: &TestEnv, adapter: &Path, url: &str, rules: Value, extra: Value) {
    let claude = env.root.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        json!({"permissions": {"defaultMode": "default"}}).to_string(),
    )
    .unwrap();
    let mut config = json!({
        "agent": {"claude": {"mode": "primary", "acp": {
            "command": [adapter],
            "env": {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-test",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1",
                    "CLAUDE_CODE_MAX_RETRIES": "0"},
            "startup_timeout": 120}}},
        "permission": rules
    });
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
}

/// The child of `parent` whose command line holds `name`.
fn child_named(parent: u32, name: &str) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid: u32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (ppid == parent && String::from_utf8_lossy(&cmdline).contains(name)).then_some(pid)
        })
}

/// Whether a `tail -f /dev/null` runs on the machine (Claude Code's command).
fn sleeping() -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|line| line == b"tail\0-f\0/dev/null\0")
    })
}

fn adapter() -> Option<PathBuf> {
    real_agent("claude-agent-acp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_under_a_deny_rule_and_killed_mid_turn_is_held_and_goes_on() {
    let Some(adapter) = adapter() else {
        return;
    };
    let env = TestEnv::new();
    let hello = env.project.join("hello.txt");
    let script = json!({"steps": [
        [{"text": "Writing it."},
         {"tool": "Write", "input": {"file_path": hello, "content": "hello\n"}}],
        [{"text": "Not written."}]
    ], "when": {
        "Wait now": [{"tool": "Bash", "input": {"command": "timeout 60 tail -f /dev/null", "description": "Wait"}}],
        "Go on": [{"text": "Back again."}]
    }});
    let model = ScriptedModel::start(&script, env.root.path());
    let rules = json!({"edit": "deny", "bash": "allow"});
    claude_in(&env, &adapter, &model.url, rules, json!({}));
    let mut agent = env.spawn_acp(&["--agent", "claude"], &[]);
    agent.permission_choice = Some("allow_once".into());
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    // Its own Write is put to Tandem's rules and refused.
    agent.prompt(&session, "Write hello.txt").await;
    assert!(
        !hello.exists(),
        "the deny rule held Claude Code's own Write"
    );
    let calls = agent.updates_of("tool_call_update");
    let write = calls.iter().find(|u| u["status"] == "failed");
    assert!(write.is_some(), "its Write failed: {calls:#?}");
    let id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "Wait now"}]}),
        )
        .await;
    // Its command runs (the person allowed it): it is killed there.
    let waited = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while !sleeping() {
            let _ =
                tokio::time::timeout(std::time::Duration::from_millis(200), agent.next_message())
                    .await;
        }
    });
    waited
        .await
        .unwrap_or_else(|_| panic!("{:#?}", agent.updates));
    let pid = child_named(agent.child.id().unwrap(), "claude-agent-acp").expect("its process");
    let killed = std::process::Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    assert!(killed.success());
    let failed = agent.response(id).await;
    let error = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("before it finished"), "{failed}");

    // The next prompt starts it again, and the session goes on.
    let before = agent.updates.len();
    let again = agent.prompt(&session, "Go on").await;
    assert_eq!(again["result"]["stopReason"], "end_turn", "{again}");
    let said: String = (agent.updates[before..].iter())
        .filter(|u| u["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect();
    assert!(said.ends_with("Back again."), "{said}");
    agent.shutdown().await;
    drop(model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_out_of_its_usage_is_handed_to_tandems_loop_with_the_conversation() {
    let Some(adapter) = adapter() else {
        return;
    };
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    let limit = "You have hit your usage limit. It resets in 5 hours.";
    let script = json!({"steps": [[{"text": "Nothing to do."}]], "when": {
        "Say hi": [{"text": "Hi there."}],
        "Now more": [{"error": 429, "message": limit, "retry_after": 18000}]
    }});
    let model = ScriptedModel::start(&script, env.root.path());
    let tandems = TestEnv::mock_config(&mock.url, "openai");
    claude_in(&env, &adapter, &model.url, json!({}), tandems);
    let mut agent: AcpProcess = env.spawn_acp(&["--agent", "claude"], &[]);
    agent.permission_choice = Some("allow_once".into());
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let first = agent.prompt(&session, "Say hi").await;
    assert_eq!(first["result"]["stopReason"], "end_turn", "{first}");
    mock.push(crate::support::mock_llm::openai_text(
        &["Carrying on here."],
        "stop",
    ));
    let response = agent.prompt(&session, "Now more").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let asked = agent.permission_requests();
    let offer = (asked.iter())
        .find(|r| r.to_string().contains("handover-"))
        .unwrap_or_else(|| panic!("{asked:#?}"));
    let title = offer["params"]["toolCall"]["title"].as_str().unwrap();
    assert!(
        title.contains("429") || title.contains("usage limit"),
        "{title}"
    );
    let modes = agent.updates_of("current_mode_update");
    assert_eq!(modes.last().unwrap()["currentModeId"], "build");
    assert!(agent.agent_text().ends_with("Carrying on here."));
    // Tandem's model was handed the conversation: the person's words and Claude Code's.
    let request = mock.requests()[0].body["messages"].to_string();
    for said in ["Say hi", "Hi there.", "Now more"] {
        assert!(request.contains(said), "{said}: {request}");
    }
    agent.shutdown().await;
    drop(model);
}
