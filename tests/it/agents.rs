//! Agents and modes through the binary: the modes and config options the editor gets,
//! switching by set_mode and set_config_option (reflected in the next turn's prompt and
//! tools), custom agents from JSON and Markdown, and the project's instruction files.

use crate::support::mock_llm::openai_text;
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn system(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn last_user(request: &Value) -> Value {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone()
}

#[tokio::test]
async fn new_sessions_offer_modes_and_config_options() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent.initialize().await;
    let response = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    let result = &response["result"];
    let build = "The default agent: reads, edits and runs commands as the permission rules allow.";
    let plan = "Plan mode: reads and explores, asks before running commands, never edits files.";
    assert_eq!(
        result["modes"],
        json!({"currentModeId": "build", "availableModes": [
            {"id": "build", "name": "Build", "description": build},
            {"id": "plan", "name": "Plan", "description": plan}]})
    );
    assert_eq!(
        result["configOptions"],
        json!([
            {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "build",
             "options": [{"value": "build", "name": "Build", "description": build}, {"value": "plan", "name": "Plan", "description": plan}]},
            {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "mock/test-model",
             "options": [{"value": "mock/test-model", "name": "Test Model"}, {"value": "scripted/demo", "name": "Scripted demo (no network)"}]},
            {"id": "approval", "name": "Approval", "description": "How much goes through without asking you",
             "category": "_approval", "type": "select", "currentValue": "ask",
             "options": [
                {"value": "ask", "name": "Ask", "description": "Your permission rules as they are"},
                {"value": "accept-edits", "name": "Accept edits", "description": "Edits in the workspace go through without asking"},
                {"value": "full-access", "name": "Full access", "description": "Whatever the sandbox holds goes through; what would leave it still asks"},
                {"value": "read-only", "name": "Read-only", "description": "No edits; commands run in a read-only sandbox"}]}
        ])
    );
}

#[tokio::test]
async fn plan_mode_reminds_denies_edits_and_switching_back_says_so() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let response = agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    assert_eq!(response["result"], json!({}), "{response}");
    mock.push(openai_text(&["A plan."], "stop"));
    agent.prompt(&session, "Plan the fix").await;
    let request = mock.requests()[0].body.clone();
    assert!(
        last_user(&request)["content"]
            .to_string()
            .contains("Plan mode is active")
    );
    let tools = tool_names(&request);
    assert!(
        !tools
            .iter()
            .any(|t| t == "edit" || t == "write" || t == "apply_patch"),
        "{tools:?}"
    );
    assert!(tools.iter().any(|t| t == "bash"));

    let response = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "mode", "value": "build"}),
        )
        .await;
    let options = response["result"]["configOptions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(options.len(), 3, "the complete list");
    assert_eq!(options[0]["currentValue"], "build");
    mock.push(openai_text(&["Doing it."], "stop"));
    agent.prompt(&session, "Go ahead").await;
    let request = mock.requests()[1].body.clone();
    let user = last_user(&request).to_string();
    assert!(
        user.contains("Your operational mode has changed from plan to build"),
        "{user}"
    );
    assert!(tool_names(&request).iter().any(|t| t == "edit"));
    // The reminders are for the model: a replay shows only the person's words.
    agent.shutdown().await;
    let mut fresh = env.spawn();
    fresh.initialize().await;
    fresh
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let texts: Vec<String> = fresh
        .updates_of("user_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["Plan the fix", "Go ahead"]);
}

#[tokio::test]
async fn the_model_option_switches_models_and_bad_choices_are_explained() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["models"]["other-model"] = json!({"name": "Other"});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "mock/other-model"}),
        )
        .await;
    assert_eq!(
        response["result"]["configOptions"][1]["currentValue"], "mock/other-model",
        "{response}"
    );
    mock.push(openai_text(&["hi"], "stop"));
    agent.prompt(&session, "hello").await;
    assert_eq!(mock.requests()[0].body["model"], "other-model");

    let bad_model = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "mock/nope"}),
        )
        .await;
    assert_eq!(bad_model["error"]["code"], -32602);
    assert!(
        bad_model["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mock/test-model, mock/other-model")
    );
    let bad_mode = agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "boss"}),
        )
        .await;
    assert_eq!(
        bad_mode["error"]["message"],
        "there is no mode `boss`; the modes are: build, plan"
    );
    let bad_option = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "colour", "value": "red"}),
        )
        .await;
    assert_eq!(bad_option["error"]["code"], -32602);
}

#[tokio::test]
async fn custom_agents_from_json_and_markdown_override_field_by_field() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["agent"] = json!({"build": {"temperature": 0.3}});
    env.write_project_config(&config);
    // opencode.json is read too, below tandem.json: its temperature loses, its prompt stays.
    std::fs::write(
        env.project.join("opencode.json"),
        r#"{"agent": {"build": {"temperature": 0.9, "prompt": "Prompt from opencode.json"}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(env.project.join(".tandem/agent")).unwrap();
    std::fs::write(
        env.project.join(".tandem/agent/reviewer.md"),
        "---\ndescription: Reviews changes\nmode: primary\ntop_p: 0.5\npermission:\n  bash: deny\n---\nYou are a strict reviewer.\n",
    )
    .unwrap();
    std::fs::write(
        env.project.join(".tandem/agent/broken.md"),
        "---\nsteps: lots\n---\nx\n",
    )
    .unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let response = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    let session = response["result"]["sessionId"].as_str().unwrap().to_owned();
    let modes: Vec<&str> = response["result"]["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        modes,
        ["build", "plan", "reviewer"],
        "the broken agent is skipped, the rest load"
    );
    // Warnings go to the log file (the data dir's, when none is set), not the editor's stderr.
    let logged = std::fs::read_to_string(env.data.join("tandem.log")).unwrap_or_default();
    let broken = env.project.join(".tandem/agent/broken.md");
    assert!(
        logged.contains(&format!("agent file {}: field `steps`", broken.display())),
        "{logged}"
    );

    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hi").await;
    let request = mock.requests()[0].body.clone();
    assert_eq!(request["temperature"], 0.3);
    assert!(system(&request).starts_with("Prompt from opencode.json"));

    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "reviewer"}),
        )
        .await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "review").await;
    let request = mock.requests()[1].body.clone();
    assert!(system(&request).starts_with("You are a strict reviewer."));
    assert_eq!(request["top_p"], 0.5);
    assert!(
        !tool_names(&request).iter().any(|t| t == "bash"),
        "its own rules apply"
    );
}

#[tokio::test]
async fn instruction_files_join_the_system_prompt() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    std::fs::write(env.project.join("AGENTS.md"), "Always run the tests.\n").unwrap();
    std::fs::write(env.project.join("CLAUDE.md"), "Prefer small diffs.\n").unwrap();
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hi").await;
    let system = system(&mock.requests()[0].body);
    assert!(
        system.contains(&format!(
            "Instructions from: {}\nAlways run the tests.",
            env.project.join("AGENTS.md").display()
        )),
        "{system}"
    );
    assert!(system.contains("Prefer small diffs."));
    assert!(system.contains(&format!("Working directory: {}", env.project.display())));
}
