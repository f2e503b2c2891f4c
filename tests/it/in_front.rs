//! Tandem in front of another agent, through the binary: `tandem acp --agent probe` runs the
//! test ACP agent as the session's primary agent. Its words reach the editor once; its own
//! process is held by Tandem's sandbox (a write outside the workspace is refused), its file
//! requests by Tandem's rules; `/undo` takes back what it wrote by itself; a crash is told and
//! the next prompt starts it again, handing it the conversation; the history is Tandem's; a
//! usage limit is handed over, with the person's yes, to Tandem's own loop and model or to
//! another agent; a protected file it creates is set aside; the person's money ceilings count
//! its cost and the time limit stops its turn; `_session/rewind` puts back what it wrote; its
//! own modes, options and commands are offered beside Tandem's.

use serde_json::{Value, json};

use crate::support::{AcpProcess, TestEnv};

/// A project whose primary agent `probe` is the test agent, and `tandem acp --agent probe`
/// with a session open; the session's id.
async fn start(env: &TestEnv, extra: Value) -> (AcpProcess, String) {
    let mut config = json!({
        "agent": {"probe": {
            "description": "The test agent, in front",
            "mode": "primary",
            "acp": {"command": [crate::support::example_path("acp_test_agent")]}
        }}
    });
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
    let mut agent = env.spawn_acp(&["--agent", "probe"], &[]);
    agent.initialize().await;
    let response = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    assert_eq!(
        response["result"]["modes"]["currentModeId"], "probe",
        "{response}"
    );
    let session = response["result"]["sessionId"].as_str().unwrap().to_owned();
    (agent, session)
}

/// The agent's words shown since update `before`.
fn text_since(agent: &AcpProcess, before: usize) -> String {
    agent.updates[before..]
        .iter()
        .filter(|u| u["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_in_front_is_held_by_tandems_sandbox_rules_undo_and_history() {
    let env = TestEnv::new();
    let (mut agent, session) = start(&env, json!({"permission": {"edit": "deny"}})).await;
    let inside = env.project.join("inside.txt");
    let outside = env.root.path().join("outside.txt");
    let via_fs = env.project.join("via-fs.txt");
    let steps = format!(
        "steps: own:{};own:{};write:{};plan",
        inside.display(),
        outside.display(),
        via_fs.display()
    );
    let response = agent.prompt(&session, &steps).await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let said = format!(
        "own {}: done\nown {}: refused: Permission denied (os error 13)\nwrite {}: refused: The \
         user's permission rules deny edit `via-fs.txt`. Do not retry it; continue without it or \
         ask the user.\nplan: sent\n",
        inside.display(),
        outside.display(),
        via_fs.display()
    );
    // Each word shown once, then what the turn changed (its own write, seen by the snapshots).
    assert_eq!(
        agent.agent_text(),
        format!("{said}\n\n1 file changed (+1 −0). /undo reverts this turn.\n")
    );
    assert!(inside.exists() && !outside.exists() && !via_fs.exists());
    let plans = agent.updates_of("plan");
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert_eq!(plans[0]["entries"][1]["content"], "report");

    // What it wrote by itself is in the turn's snapshot: `/undo` takes it back.
    agent.prompt(&session, "/undo").await;
    assert!(!inside.exists(), "/undo takes back the agent's own write");

    // A crash is told; the next prompt starts it again and hands it the conversation.
    let crashed = agent.prompt(&session, "steps: crash").await;
    let error = crashed["error"]["message"].as_str().unwrap();
    assert!(
        error.contains("exited (exit status: 3) before it finished")
            && error.contains("boom: the test agent broke on purpose"),
        "{crashed}"
    );
    let before = agent.updates.len();
    let again = agent.prompt(&session, "steps: heard").await;
    assert_eq!(again["result"]["stopReason"], "end_turn", "{again}");
    let later = text_since(&agent, before);
    assert_eq!(
        later,
        "(The agent `probe` could not continue its earlier session, so Tandem handed the \
         conversation so far to a new one.)\n\nheard: history: The person: steps: crash | \
         plan: - [done] look around | - [to do] report\n"
    );
    agent.shutdown().await;

    // The history is Tandem's: listed and replayed by a new process.
    let mut agent = env.spawn_acp(&["--agent", "probe"], &[]);
    agent.initialize().await;
    let list = agent.request("session/list", json!({})).await;
    assert_eq!(list["result"]["sessions"][0]["sessionId"], session.as_str());
    agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    // The first turn was undone; the crashed one and the last are there.
    assert_eq!(agent.agent_text(), later);
    let asked: Vec<&str> = (agent.updates.iter())
        .filter(|u| u["update"]["sessionUpdate"] == "user_message_chunk")
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect();
    assert_eq!(asked, ["steps: crash", "steps: heard"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_usage_limit_hands_the_session_over_to_tandems_own_loop_with_its_history() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    let (mut agent, session) = start(&env, TestEnv::mock_config(&mock.url, "openai")).await;
    agent.permission_choice = Some("allow_once".into());
    agent.prompt(&session, "steps: plan").await;
    mock.push(crate::support::mock_llm::openai_text(
        &["Carrying on from here."],
        "stop",
    ));
    let response = agent.prompt(&session, "steps: limit").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    // The person was offered the switch, with the agent's reason and Tandem's model.
    let asked = agent.permission_requests();
    let offer = asked
        .iter()
        .find(|r| {
            r["params"]["toolCall"]["toolCallId"]
                .as_str()
                .unwrap()
                .starts_with("handover-")
        })
        .unwrap_or_else(|| panic!("{asked:#?}"));
    let title = offer["params"]["toolCall"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("The agent `probe` stopped: ") && title.contains("429 Too Many Requests"),
        "{title}"
    );
    assert!(
        title.ends_with("Go on with this session on Tandem's own `build` agent with mock/test-model? The conversation, the todo list and the changed files carry over."),
        "{title}"
    );
    // The switch is stored and shown; the model got the history, the agent's words included.
    let modes = agent.updates_of("current_mode_update");
    assert_eq!(modes.last().unwrap()["currentModeId"], "build");
    assert!(
        agent.agent_text().contains(
            "(`probe` hit its usage limit; this session goes on with Tandem's own `build` agent \
             on mock/test-model.)"
        ),
        "{}",
        agent.agent_text()
    );
    assert!(agent.agent_text().ends_with("Carrying on from here."));
    let messages = mock.requests()[0].body["messages"].clone();
    let said: Vec<(&str, String)> = messages
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|m| (m["role"].as_str().unwrap(), m["content"].to_string()))
        .collect();
    assert_eq!(
        said[0],
        ("user", "\"steps: plan\"".to_owned()),
        "{messages}"
    );
    assert_eq!(said[1].0, "assistant");
    assert!(said[1].1.contains("plan: sent"), "{messages}");
    assert_eq!(
        said.last().unwrap(),
        &("user", "\"steps: limit\"".to_owned())
    );
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protected_file_the_agent_creates_by_itself_is_set_aside_and_told() {
    let env = TestEnv::new();
    let (mut agent, session) = start(&env, json!({})).await;
    let envrc = env.project.join(".envrc");
    let steps = format!("steps: own:{}", envrc.display());
    agent.prompt(&session, &steps).await;
    assert!(
        !envrc.exists(),
        "direnv would run it on entering the folder"
    );
    let aside = env.project.join(".envrc.set-aside-by-tandem");
    assert_eq!(
        std::fs::read_to_string(&aside).unwrap(),
        "written by the agent itself\n"
    );
    let text = agent.agent_text();
    assert!(
        text.contains("Tandem set aside .envrc (renamed with .set-aside-by-tandem)"),
        "{text}"
    );
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persons_money_ceiling_holds_the_agents_reported_cost() {
    let env = TestEnv::new();
    let (mut agent, session) = start(&env, json!({"limits": {"session_cost": 0.2}})).await;
    // The agent reports its session has cost $0.25: over the ceiling, the next turn is not
    // handed to it.
    agent.prompt(&session, "steps: usage").await;
    let before = agent.updates.len();
    let refused = agent.prompt(&session, "steps: heard").await;
    assert_eq!(refused["result"]["stopReason"], "max_tokens", "{refused}");
    let said = text_since(&agent, before);
    assert!(
        said.contains("This session has spent $0.25") && said.contains("session_cost"),
        "{said}"
    );
    assert!(
        !said.contains("heard:"),
        "the agent was not prompted: {said}"
    );
    agent.shutdown().await;
}

/// The options of the agent's own in a list of config options (`<agent>:<option>`).
fn agents_options(options: &Value) -> Vec<Value> {
    (options.as_array().unwrap().iter())
        .filter(|o| o["id"].as_str().unwrap().starts_with("probe:"))
        .cloned()
        .collect()
}

/// `session/set_config_option` of `(option, value)`; the answer.
async fn set_option(agent: &mut AcpProcess, session: &str, (id, value): (&str, &str)) -> Value {
    let params = json!({"sessionId": session, "configId": id, "value": value});
    agent.request("session/set_config_option", params).await
}

/// The names in the last list of commands sent.
fn last_commands(agent: &AcpProcess) -> Vec<String> {
    let lists = agent.updates_of("available_commands_update");
    let last = lists.last().expect("a list of commands");
    (last["availableCommands"].as_array().unwrap().iter())
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_own_modes_options_and_commands_are_offered_beside_tandems() {
    let env = TestEnv::new();
    let (mut agent, session) = start(&env, json!({})).await;
    // Started with the session (the folder is trusted): what it offers comes unasked.
    let update = agent
        .wait_for_update(|u| {
            u["update"]["sessionUpdate"] == "config_option_update"
                && !agents_options(&u["update"]["configOptions"]).is_empty()
        })
        .await;
    let options = &update["update"]["configOptions"];
    assert_eq!(
        agents_options(options),
        [
            json!({"id": "probe:mode", "name": "Probe mode", "category": "_agent_mode",
                   "type": "select", "currentValue": "ask", "options": [
                       {"value": "ask", "name": "Ask", "description": "Asks before it acts"},
                       {"value": "yolo", "name": "Yolo"}]}),
            json!({"id": "probe:model", "name": "Probe model", "category": "model",
                   "type": "select", "currentValue": "fast", "options": [
                       {"value": "fast", "name": "Fast"}, {"value": "smart", "name": "Smart"}]}),
        ]
    );
    // Tandem's own mode selector (which picks the agent) and approval levels stay first.
    let ids: Vec<&str> = (options.as_array().unwrap().iter())
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[0], "mode");
    assert!(ids.contains(&"approval"), "{ids:?}");
    agent
        .wait_for_update(|u| {
            u["update"]["sessionUpdate"] == "available_commands_update"
                && u["update"]["availableCommands"]
                    .to_string()
                    .contains("hello")
        })
        .await;
    let commands = last_commands(&agent);
    // Its `/compact` is offered under its own name, since Tandem's takes `compact`.
    for name in ["compact", "undo", "probe:compact", "hello"] {
        assert!(commands.iter().any(|c| c == name), "{name}: {commands:?}");
    }

    // Chosen in the editor, set on the agent: its model as an option, its mode as a mode.
    let chose = set_option(&mut agent, &session, ("probe:model", "smart")).await;
    let model = agents_options(&chose["result"]["configOptions"]);
    assert_eq!(model[1]["currentValue"], "smart", "{chose}");
    let chose = set_option(&mut agent, &session, ("probe:mode", "yolo")).await;
    let mode = agents_options(&chose["result"]["configOptions"]);
    assert_eq!(mode[0]["currentValue"], "yolo", "{chose}");
    let before = agent.updates.len();
    agent.prompt(&session, "steps: settings").await;
    assert_eq!(
        text_since(&agent, before),
        "settings: mode yolo, model smart\n"
    );
    // Its own command reaches it under its own name.
    let before = agent.updates.len();
    agent
        .prompt(&session, "/probe:compact now\nsteps: heard")
        .await;
    assert_eq!(
        text_since(&agent, before),
        "heard: /compact now\nsteps: heard\n"
    );

    // Back on Tandem's own `build`: its options and commands go.
    let before = agent.updates.len();
    let switched = set_option(&mut agent, &session, ("mode", "build")).await;
    assert!(
        agents_options(&switched["result"]["configOptions"]).is_empty(),
        "{switched}"
    );
    while !(agent.updates[before..].iter())
        .any(|u| u["update"]["sessionUpdate"] == "available_commands_update")
    {
        agent.next_message().await;
    }
    let commands = last_commands(&agent);
    assert!(
        commands.iter().any(|c| c == "compact")
            && !commands
                .iter()
                .any(|c| c == "hello" || c == "probe:compact"),
        "{commands:?}"
    );
    let unknown = set_option(&mut agent, &session, ("probe:model", "fast")).await;
    assert!(unknown["error"].is_object(), "{unknown}");
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_usage_limit_may_be_handed_to_another_agent_which_is_handed_the_conversation() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    let mut extra = TestEnv::mock_config(&mock.url, "openai");
    // A second agent of the config: the same test agent, which only reports what it heard.
    extra["agent"] = json!({
        "probe": {"mode": "primary",
                  "acp": {"command": [crate::support::example_path("acp_test_agent")]}},
        "relay": {"mode": "primary",
                  "acp": {"command": [crate::support::example_path("acp_test_agent")],
                          "env": {"ACP_TEST_STEPS": "heard", "ACP_TEST_ONLY_ENV": "1"}}}
    });
    let (mut agent, session) = start(&env, extra).await;
    agent.prompt(&session, "steps: plan").await;
    // The person picks the second place offered: the agent `relay`.
    agent.permission_choice = Some("choice-1".into());
    let before = agent.updates.len();
    let response = agent.prompt(&session, "steps: limit").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let asked = agent.permission_requests();
    let offer = asked
        .iter()
        .find(|r| {
            (r["params"]["toolCall"]["toolCallId"].as_str())
                .is_some_and(|id| id.starts_with("handover-"))
        })
        .unwrap_or_else(|| panic!("{asked:#?}"));
    let options: Vec<(&str, &str)> = (offer["params"]["options"].as_array().unwrap().iter())
        .map(|o| (o["optionId"].as_str().unwrap(), o["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        options,
        [
            ("choice-0", "Tandem on mock/test-model"),
            ("choice-1", "The agent relay"),
            ("reply-in-chat", "Reply in chat instead")
        ]
    );
    // The switch is stored and shown; `relay` answered the same prompt, handed what was said.
    let modes = agent.updates_of("current_mode_update");
    assert_eq!(modes.last().unwrap()["currentModeId"], "relay");
    assert_eq!(
        text_since(&agent, before),
        "\n(`probe` hit its usage limit; this session goes on with the agent `relay`.)\n\n\
         (Tandem handed the conversation so far to the agent `relay`.)\n\n\
         heard: history: The person: steps: plan | plan: - [done] look around | - [to do] report\n"
    );
    assert!(
        mock.requests().is_empty(),
        "Tandem's own model was not used"
    );
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_puts_back_what_the_agent_wrote_and_the_time_limit_stops_it() {
    let env = TestEnv::new();
    let (mut agent, session) = start(&env, json!({"limits": {"turn_seconds": 2}})).await;
    let (a, b) = (env.project.join("a.txt"), env.project.join("b.txt"));
    let first = format!("steps: own:{}", a.display());
    let second = format!("steps: own:{}", b.display());
    agent.prompt(&session, &first).await;
    agent.prompt(&session, &second).await;
    assert!(a.exists() && b.exists());
    // `_session/rewind` to before the second prompt takes back what the agent wrote by itself.
    let params = crate::rewind::rewind(&session, &second, json!({}));
    let done = agent.request("_session/rewind", params).await;
    assert_eq!(done["result"]["rewound"], true, "{done}");
    assert_eq!(done["result"]["files"], json!(["b.txt"]), "{done}");
    assert!(a.exists() && !b.exists());

    // Tandem's time limit ends a turn of the agent's that runs past it.
    let before = agent.updates.len();
    let stopped = agent.prompt(&session, "steps: hang").await;
    assert_eq!(
        stopped["result"]["stopReason"], "max_turn_requests",
        "{stopped}"
    );
    let said = text_since(&agent, before);
    assert!(said.contains("`limits.turn_seconds`"), "{said}");
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_private_temp_dir_goes_with_it() {
    let env = TestEnv::new();
    let temp = env.root.path().join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let private = || -> Vec<String> {
        (std::fs::read_dir(&temp).unwrap().flatten())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("tandem-agent-"))
            .collect()
    };
    env.write_project_config(&json!({"agent": {"probe": {"mode": "primary",
        "acp": {"command": [crate::support::example_path("acp_test_agent")]}}}}));
    let temp_env = temp.display().to_string();
    let mut agent = env.spawn_acp(&["--agent", "probe"], &[("TMPDIR", temp_env.as_str())]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    agent.prompt(&session, "steps: heard").await;
    assert_eq!(
        private().len(),
        1,
        "the confined agent has a temp dir of its own"
    );
    agent.shutdown().await;
    assert!(private().is_empty(), "{:?}", private());
}
