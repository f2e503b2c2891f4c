//! `tandem run`, the README's first command: with no key and no config it runs the scripted
//! demo through a real turn (a tool call included) and prints what the editor would see.

use crate::support::TestEnv;
use serde_json::Value;

fn run(env: &TestEnv, args: &[&str]) -> std::process::Output {
    env.command(&[&["run"], args].concat())
        .env_remove("TANDEM_LOG")
        .output()
        .unwrap()
}

#[test]
fn with_no_key_the_scripted_demo_prints_the_editors_view_as_json() {
    let env = TestEnv::new();
    let output = run(&env, &["--format", "json", "What is in this project?"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("scripted demo model (no network)"),
        "{stderr}"
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON-RPC"))
        .collect();
    let kinds: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["params"]["update"]["sessionUpdate"].as_str())
        .collect();
    for kind in [
        "session_info_update",
        "agent_thought_chunk",
        "agent_message_chunk",
        "tool_call",
        "tool_call_update",
        "usage_update",
    ] {
        assert!(kinds.contains(&kind), "missing {kind} in {kinds:?}");
    }
    let listing = lines
        .iter()
        .map(|l| &l["params"]["update"])
        .find(|u| u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed")
        .unwrap();
    assert!(
        listing["rawOutput"]["output"]
            .as_str()
            .unwrap()
            .contains("README.md")
    );
    assert_eq!(lines.last().unwrap()["result"]["stopReason"], "end_turn");
    // The session is in the store like any other.
    assert!(env.db_path().exists());
}

#[test]
fn text_format_reads_like_a_conversation() {
    let env = TestEnv::new();
    let output = run(&env, &["hello"]);
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Let me look at the project first."),
        "{stdout}"
    );
    assert!(stdout.contains("→ list ."), "{stdout}");
    assert!(stdout.contains("README.md"), "{stdout}");
    assert!(stdout.trim_end().ends_with("[stop: end_turn]"), "{stdout}");
    assert!(
        !stdout.contains('\x1b'),
        "no colour codes when stdout is not a terminal"
    );
}
