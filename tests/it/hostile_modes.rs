//! Modes and subagents against a hostile model, through the binary: plan mode never edits
//! whatever the global rules say, a session reopened in a new process keeps its mode and
//! model, and a subagent is never looser than its caller.

use crate::support::acp::TestEnv;
use crate::support::mock_llm::{MockLlm, openai_text, openai_tool_call};
use serde_json::{Value, json};

fn config(mock: &MockLlm, extra: Value) -> Value {
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["models"]["other-model"] = json!({"name": "Other Model"});
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    config
}

#[tokio::test]
async fn plan_mode_survives_a_restart_and_a_global_edit_ask_never_reopens_edits() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&config(
        &mock,
        json!({"permission": {"edit": "ask", "bash": "allow"}}),
    ));
    let mut first = env.spawn();
    first.initialize().await;
    let session = first.new_session(&env.project).await;
    first
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    let response = first
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "mock/other-model"}),
        )
        .await;
    assert_eq!(
        response["result"]["configOptions"][1]["currentValue"],
        "mock/other-model"
    );
    first.shutdown().await;

    for method in ["session/load", "session/resume"] {
        let mut agent = env.spawn();
        agent.initialize().await;
        // Whatever the person would answer, plan mode's refusal is not a question.
        agent.permission_choice = Some("allow_once".into());
        let response = agent
            .request(
                method,
                json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
            )
            .await;
        let result = &response["result"];
        assert_eq!(
            result["modes"]["currentModeId"], "plan",
            "{method}: {response}"
        );
        assert_eq!(result["configOptions"][0]["currentValue"], "plan");
        assert_eq!(
            result["configOptions"][1]["currentValue"],
            "mock/other-model"
        );
        let before = mock.requests().len();
        mock.push(openai_tool_call(
            "call_w",
            "bash",
            &[&json!({"command": "echo planned > plan.txt"}).to_string()],
        ));
        mock.push(openai_text(&["ok"], "stop"));
        agent.prompt(&session, "write it").await;
        let requests = mock.requests();
        assert_eq!(requests[before].body["model"], "other-model");
        let tools: Vec<&str> = requests[before].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert!(
            !tools.contains(&"write") && !tools.contains(&"edit"),
            "{tools:?}"
        );
        let told = requests[before + 1].body["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"]
            .clone();
        assert!(
            told.as_str().unwrap().contains("deny edit"),
            "{method}: {told}"
        );
        assert!(!env.project.join("plan.txt").exists());
        assert!(agent.permission_requests().is_empty(), "denied, not asked");
        agent.shutdown().await;
    }
}

#[tokio::test]
async fn a_subagent_asks_wherever_its_caller_would() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    // The caller (plan) asks before any command; explore allows bash for itself.
    env.write_project_config(&config(&mock, json!({})));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    mock.push(openai_tool_call(
        "call_task",
        "task",
        &[
            &json!({"description": "look", "prompt": "run it", "subagent_type": "explore"})
                .to_string(),
        ],
    ));
    mock.push(openai_tool_call(
        "call_bash",
        "bash",
        &[&json!({"command": "echo child-ran"}).to_string()],
    ));
    mock.push(openai_text(&["child done"], "stop"));
    mock.push(openai_text(&["parent done"], "stop"));
    agent.prompt(&session, "delegate").await;
    let asked = agent.permission_requests();
    assert_eq!(
        asked.len(),
        1,
        "the caller's ask held in the child: {asked:?}"
    );
    assert_eq!(
        asked[0]["params"]["toolCall"]["rawInput"]["command"],
        "echo child-ran"
    );
    let told = mock.requests()[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .clone();
    assert!(
        told.as_str()
            .unwrap()
            .starts_with("The user rejected permission"),
        "{told}"
    );
}

#[tokio::test]
async fn plan_modes_subagents_run_read_only_whatever_their_own_agents_say() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    // Every command allowed, no sandbox in the config, and a subagent that asks for none.
    env.write_project_config(&config(
        &mock,
        json!({
            "permission": {"bash": "allow"},
            "sandbox": {"mode": "off"},
            "agent": {"writer": {"mode": "subagent", "description": "Writes",
                "permission": {"edit": "allow", "bash": "allow"}, "sandbox": {"mode": "off"}}}
        }),
    ));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let delegate_write =
        |agent_name: &str, file: &str| {
            let file = env.project.join(file);
            mock.push(openai_tool_call(
            "call_task",
            "task",
            &[&json!({"description": "write", "prompt": "write it", "subagent_type": agent_name})
                .to_string()],
        ));
            let line = format!("python3 -c \"open('{}', 'w').write('x')\"", file.display());
            mock.push(openai_tool_call(
                "call_bash",
                "bash",
                &[&json!({"command": line}).to_string()],
            ));
            mock.push(openai_text(&["child done"], "stop"));
            mock.push(openai_text(&["parent done"], "stop"));
            file
        };
    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    for (name, file) in [("writer", "by-writer"), ("general", "by-general")] {
        let file = delegate_write(name, file);
        agent.prompt(&session, "delegate").await;
        assert!(!file.exists(), "{name} wrote from plan mode");
    }
    // The same in build mode writes: the sandbox, not the rules, held it.
    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "build"}),
        )
        .await;
    let file = delegate_write("writer", "by-writer-in-build");
    agent.prompt(&session, "delegate").await;
    assert!(file.exists(), "the twin in build mode did not write");
}
