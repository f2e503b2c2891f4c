//! Slash commands, generated titles and prompts that join a running turn, through the real
//! binary: what the editor is offered, what each command sends the model, how the title agent
//! names a session, and how a message sent mid-turn reaches the model at the next step.

use std::time::Duration;

use crate::support::mock_llm::{openai_text, openai_tool_calls};
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

/// The user text of a request's last user message.
fn last_user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn commands_are_offered_after_new_load_and_resume_with_their_hints() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["command"] = json!({"explain": {"template": "Explain $ARGUMENTS simply",
        "description": "Explain something"}});
    env.write_project_config(&config);
    for (dir, name, text) in [
        (
            ".tandem/command",
            "test",
            "---\ndescription: Run the tests\ninput: test name\n---\nRun the test $1.\n",
        ),
        (
            ".opencode/command",
            "lint",
            "---\ndescription: Lint the code\n---\nRun the linter.\n",
        ),
    ] {
        std::fs::create_dir_all(env.project.join(dir)).unwrap();
        std::fs::write(env.project.join(dir).join(format!("{name}.md")), text).unwrap();
    }
    std::fs::create_dir_all(env.config_dir.join("command")).unwrap();
    std::fs::write(env.config_dir.join("command/mine.md"), "My global command.").unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let offered = agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "available_commands_update")
        .await;
    let commands = offered["update"]["availableCommands"].as_array().unwrap();
    let names: Vec<&str> = commands
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "compact",
            "undo",
            "redo",
            "jobs",
            "diagnostics",
            "goal",
            "memory",
            "init",
            "review",
            "merge",
            "mine",
            "explain",
            "lint",
            "test"
        ]
    );
    let by_name = |name: &str| commands.iter().find(|c| c["name"] == name).unwrap().clone();
    assert_eq!(
        by_name("test"),
        json!({"name": "test", "description": "Run the tests", "input": {"hint": "test name"}})
    );
    assert_eq!(by_name("explain")["input"], json!({"hint": "arguments"}));
    assert!(by_name("lint").get("input").is_none());
    assert_eq!(
        by_name("review")["input"]["hint"],
        "branch or commit (default: uncommitted changes)"
    );

    for method in ["session/load", "session/resume"] {
        agent.updates.clear();
        agent
            .request(
                method,
                json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
            )
            .await;
        let again = agent
            .wait_for_update(|u| u["update"]["sessionUpdate"] == "available_commands_update")
            .await;
        assert_eq!(again["update"], offered["update"], "{method}");
    }
}

#[tokio::test]
async fn each_command_sends_its_template_and_unknown_ones_are_plain_text() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    std::fs::create_dir_all(env.project.join(".tandem/command")).unwrap();
    std::fs::write(
        env.project.join(".tandem/command/fix.md"),
        "---\ndescription: Fix an issue\n---\nFix issue $1 in $2, then say what changed.",
    )
    .unwrap();
    // A new session reads the new command file.
    let session_with_file = agent.new_session(&env.project).await;
    for (text, expected) in [
        ("/review main", "What to review: main"),
        ("/review", "review the uncommitted changes"),
        ("/init", "Create or improve the AGENTS.md file"),
        ("/nope do this", "/nope do this"),
    ] {
        mock.push(openai_text(&["ok"], "stop"));
        let response = agent.prompt(&session, text).await;
        assert_eq!(response["result"]["stopReason"], "end_turn", "{text}");
        let sent = last_user_text(&mock.requests().last().unwrap().body);
        assert!(sent.contains(expected), "{text}: {sent}");
    }
    mock.push(openai_text(&["ok"], "stop"));
    agent
        .prompt(&session_with_file, "/fix 42 src/main.rs")
        .await;
    let sent = last_user_text(&mock.requests().last().unwrap().body);
    assert_eq!(sent, "Fix issue 42 in src/main.rs, then say what changed.");
}

#[tokio::test]
async fn the_title_agent_names_the_session_in_the_background() {
    let mock = MockLlm::start().await;
    mock.set_title(Some("<think>short</think>\"Parser refactor plan.\""));
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["models"]["small"] = json!({"name": "Small"});
    config["small_model"] = json!("mock/small");
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_text(&["ok"], "stop"));
    agent
        .prompt(&session, "Refactor the parser\nplease, it is slow")
        .await;
    let titled = agent
        .wait_for_update(|u| u["update"]["title"] == "Parser refactor plan")
        .await;
    assert_eq!(titled["sessionId"], json!(session));
    // The first line came first, as the fallback.
    assert_eq!(
        agent.updates_of("session_info_update")[0]["title"],
        "Refactor the parser"
    );
    let asked = mock.title_requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].body["model"], "small");
    assert!(asked[0].body.get("tools").is_none());
    assert!(last_user_text(&asked[0].body).contains("Refactor the parser\nplease, it is slow"));
    let list = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    assert_eq!(
        list["result"]["sessions"][0]["title"],
        "Parser refactor plan"
    );

    // The second prompt asks for no title.
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "more").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(mock.title_requests().len(), 1);
}

#[tokio::test]
async fn a_failing_title_model_keeps_the_first_line() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.set_title(None);
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "Fix the login bug").await;
    // The title agent (the session's own model here) was asked and failed (with retries).
    for _ in 0..100 {
        if mock.title_requests().len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(mock.title_requests().len(), 3);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let list = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    assert_eq!(list["result"]["sessions"][0]["title"], "Fix the login bug");
    assert_eq!(agent.updates_of("session_info_update").len(), 1);
}

#[tokio::test]
async fn a_prompt_sent_during_a_turn_joins_it_at_the_next_step() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    // The first step's answer is held after its first chunk until the second prompt has been
    // sent (and a generous second more for the agent to take it in), so it arrives while the
    // step runs however loaded the machine is.
    let sent = crate::support::mock_llm::Gate::default();
    let first_step = openai_tool_calls(&[("call_1", "list", "{}")]);
    let last = first_step.chunks.len() - 1;
    mock.push(first_step.gated(last, &sent));
    mock.push(openai_text(&["Listed, and noted the README."], "stop"));
    let first = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "list the files"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "tool_call")
        .await;
    let second = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "also check the README"}]}),
        )
        .await;
    let open_later = sent.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        open_later.open();
    });
    // Both are answered when the one turn ends, in either order.
    let mut answers = std::collections::HashMap::new();
    while answers.len() < 2 {
        let message = agent.next_message().await;
        if let Some(id) = message["id"]
            .as_i64()
            .filter(|_| message.get("method").is_none())
        {
            answers.insert(id, message);
        }
    }
    let (first, second) = (&answers[&first], &answers[&second]);
    assert_eq!(first["result"]["stopReason"], "end_turn", "{first}");
    assert_eq!(second["result"]["stopReason"], "end_turn", "{second}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "one turn, two steps");
    let joined = last_user_text(&requests[1].body);
    assert_eq!(
        joined,
        "<system-reminder>\nThe user sent the following message while you were working:\n\
         also check the README\n\nPlease address this message and continue with your tasks.\n\
         </system-reminder>"
    );
    // The request carries the step's tool result before the joined message.
    let messages = requests[1].body["messages"].as_array().unwrap();
    assert_eq!(messages[messages.len() - 2]["role"], "tool");
}
