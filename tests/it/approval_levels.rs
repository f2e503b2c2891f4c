//! The approval levels (a session config option, `tandem run --approve=…`), through the binary
//! against one rule set: each level lets through only what it names, while the deny rule, the
//! protected file and the folder outside the workspace stay as they are at every level; the
//! level is stored and comes back with the session.

use std::path::Path;

use crate::support::{AcpProcess, MockLlm, TestEnv, call_tool};
use serde_json::{Value, json};

/// What one call did under a level: whether the person was asked, and whether its file is
/// there now.
#[derive(Debug, PartialEq)]
struct Outcome {
    asked: bool,
    written: bool,
}

const CALLS: [&str; 5] = ["plain", "denied", "protected", "command", "outside"];

async fn try_level(level: &str) -> Vec<Outcome> {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"edit": {"*": "ask", "secret/*": "deny"}, "bash": "ask"});
    env.write_project_config(&config);
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(env.project.join("secret")).unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let set = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "approval", "value": level}),
        )
        .await;
    let approval = option(&set["result"]["configOptions"], "approval");
    assert_eq!(approval["currentValue"], level, "{set}");
    let out = outside.join("x.txt").display().to_string();
    let calls: [(&str, Value, &Path); 5] = [
        (
            "write",
            json!({"filePath": "a.txt", "content": "a\n"}),
            &env.project.join("a.txt"),
        ),
        (
            "write",
            json!({"filePath": "secret/s.txt", "content": "s\n"}),
            &env.project.join("secret/s.txt"),
        ),
        (
            "write",
            json!({"filePath": ".envrc", "content": "export X=1\n"}),
            &env.project.join(".envrc"),
        ),
        (
            "bash",
            json!({"command": "echo hi > b.txt", "description": "write b"}),
            &env.project.join("b.txt"),
        ),
        (
            "write",
            json!({"filePath": out, "content": "o\n"}),
            &outside.join("x.txt"),
        ),
    ];
    let mut outcomes = Vec::new();
    for (tool, args, file) in calls {
        let before = agent.permission_requests().len();
        call_tool(&mock, &mut agent, &session, tool, args).await;
        outcomes.push(Outcome {
            asked: agent.permission_requests().len() > before,
            written: file.exists(),
        });
    }
    reload_keeps(&env, agent, &session, level).await;
    outcomes
}

fn option<'a>(options: &'a Value, id: &str) -> &'a Value {
    options
        .as_array()
        .and_then(|all| all.iter().find(|o| o["id"] == id))
        .unwrap_or_else(|| panic!("no option {id} in {options}"))
}

/// A new process loading the session shows the level it was left at.
async fn reload_keeps(env: &TestEnv, agent: AcpProcess, session: &str, level: &str) {
    drop(agent);
    let mut agent = env.spawn();
    agent.initialize().await;
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let approval = option(&loaded["result"]["configOptions"], "approval");
    assert_eq!(approval["currentValue"], level, "{loaded}");
    let ids: Vec<&Value> = approval["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["value"])
        .collect();
    assert_eq!(
        ids,
        [
            &json!("ask"),
            &json!("accept-edits"),
            &json!("full-access"),
            &json!("read-only")
        ]
    );
}

fn expect(pairs: [(bool, bool); 5]) -> Vec<Outcome> {
    pairs
        .into_iter()
        .map(|(asked, written)| Outcome { asked, written })
        .collect()
}

#[tokio::test]
async fn ask_keeps_the_rules_as_they_are() {
    let got = try_level("ask").await;
    // plain, denied, protected, command, outside
    let want = expect([
        (true, false),
        (false, false),
        (true, false),
        (true, false),
        (true, false),
    ]);
    assert_eq!(got, want, "{CALLS:?}");
}

#[tokio::test]
async fn accept_edits_lets_edits_in_the_workspace_through_and_nothing_else() {
    let got = try_level("accept-edits").await;
    let want = expect([
        (false, true),
        (false, false),
        (true, false),
        (true, false),
        (true, false),
    ]);
    assert_eq!(got, want, "{CALLS:?}");
}

#[tokio::test]
async fn full_access_lets_what_the_sandbox_holds_through() {
    let got = try_level("full-access").await;
    let want = expect([
        (false, true),
        (false, false),
        (true, false),
        (false, true),
        (true, false),
    ]);
    assert_eq!(got, want, "{CALLS:?}");
}

#[tokio::test]
async fn read_only_refuses_every_edit_without_asking() {
    let got = try_level("read-only").await;
    let want = expect([
        (false, false),
        (false, false),
        (false, false),
        (false, false),
        (true, false),
    ]);
    assert_eq!(got, want, "{CALLS:?}");
}

#[tokio::test]
async fn an_unknown_level_is_refused_by_name() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let answer = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "approval", "value": "yolo"}),
        )
        .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("there is no approval level `yolo`"),
        "{answer}"
    );
}

#[tokio::test]
async fn tandem_run_takes_a_level_with_approve() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"edit": "ask"});
    env.write_project_config(&config);
    let run = |level: &str, file: &str| {
        let args = json!({"filePath": file, "content": "x\n"});
        mock.push(crate::support::mock_llm::openai_tool_call(
            "c1",
            "write",
            &[&args.to_string()],
        ));
        mock.push(crate::support::mock_llm::openai_text(&["Done."], "stop"));
        let mut command = env.command(&["run", &format!("--approve={level}"), "write it"]);
        command.stdin(std::process::Stdio::null());
        tokio::task::spawn_blocking(move || command.output().unwrap())
    };
    let output = run("edits", "a.txt").await.unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        env.project.join("a.txt").exists(),
        "accepted without a terminal"
    );
    let output = run("read-only", "b.txt").await.unwrap();
    assert!(output.status.success());
    assert!(!env.project.join("b.txt").exists());
}

#[tokio::test]
async fn a_subagent_and_a_fork_keep_the_callers_level() {
    use crate::support::mock_llm::{openai_text, openai_tool_call};
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"edit": "ask"});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "approval", "value": "accept-edits"}),
        )
        .await;
    // The subagent's edit goes through without a question, as the caller's would.
    let task = json!({"description": "Write", "prompt": "Write the child file",
                      "subagent_type": "general"});
    mock.push(openai_tool_call("t1", "task", &[&task.to_string()]));
    let write = json!({"filePath": "child.txt", "content": "c\n"});
    mock.push_for(
        "Write the child file",
        openai_tool_call("w1", "write", &[&write.to_string()]),
    );
    mock.push(openai_text(&["Written."], "stop"));
    mock.push(openai_text(&["The child wrote it."], "stop"));
    let response = agent.prompt(&session, "delegate").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert!(agent.permission_requests().is_empty(), "asked");
    assert_eq!(
        std::fs::read_to_string(env.project.join("child.txt")).unwrap(),
        "c\n"
    );
    // A fork starts at the level its source was left at, and acts on it.
    let forked = agent
        .request(
            "session/fork",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let approval = option(&forked["result"]["configOptions"], "approval");
    assert_eq!(approval["currentValue"], "accept-edits", "{forked}");
    let fork = forked["result"]["sessionId"].as_str().unwrap().to_owned();
    call_tool(
        &mock,
        &mut agent,
        &fork,
        "write",
        json!({"filePath": "fork.txt", "content": "f\n"}),
    )
    .await;
    assert!(agent.permission_requests().is_empty(), "asked in the fork");
    assert!(env.project.join("fork.txt").exists());
}
