//! Subagents through the binary: the task tool end to end, the child's tool calls and
//! permission prompts on the parent's session, parallel tasks, resuming by task_id, seed 004's
//! budgets and denials, and cancel reaching the child. The mock answers a child's requests by
//! matching its prompt.

use std::time::Duration;

use crate::support::mock_llm::{openai_text, openai_tool_call, openai_tool_calls};
use crate::support::{MockLlm, TestEnv, call_updates};
use serde_json::{Value, json};

fn task(description: &str, prompt: &str, agent: &str) -> String {
    json!({"description": description, "prompt": prompt, "subagent_type": agent}).to_string()
}

/// The tool results the parent's model received in its request `index`.
fn tool_results(mock: &MockLlm, index: usize) -> Vec<String> {
    mock.requests()[index].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_task_runs_a_subagent_in_a_child_session_the_editor_can_see() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "call_task",
        "task",
        &[&task("Find the readme", "Where is the README?", "explore")],
    ));
    mock.push_for(
        "Where is the README?",
        openai_tool_call("c_glob", "glob", &[r#"{"pattern": "*.md"}"#]),
    );
    mock.push(openai_text(&["README.md is at the root."], "stop"));
    mock.push(openai_text(&["The explorer found it."], "stop"));
    let response = agent.prompt(&session, "find the readme").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    let child = children["result"]["sessions"][0].clone();
    let child_id = child["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(child["title"], "Find the readme (@explore subagent)");
    assert_eq!(child["parentId"], session);
    assert_eq!(
        tool_results(&mock, 3),
        [format!(
            "task_id: {child_id} (for resuming to continue this task if needed)\n\n<task_result>\nREADME.md is at the root.\n</task_result>"
        )]
    );
    // The child got only the prompt, the explorer's own instructions, and its restricted tools.
    let child_request = &mock.requests()[1].body;
    assert_eq!(
        child_request["messages"][1],
        json!({"role": "user", "content": "Where is the README?"})
    );
    assert!(
        child_request["messages"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You are a fast file-search specialist")
    );
    let child_tools: Vec<&str> = child_request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        child_tools,
        ["bash", "read", "glob", "grep", "webfetch", "list", "lsp"]
    );

    // The editor: the task call (think, titled by its description) learns its child, and the
    // child's glob call appears on the parent's session, tagged and nested under it.
    let calls = agent.updates_of("tool_call");
    assert_eq!(calls[0]["toolCallId"], "call_task");
    assert_eq!(calls[0]["kind"], "think");
    let task_updates = call_updates(&agent, "call_task");
    assert!(
        task_updates
            .iter()
            .any(|u| u["_meta"]["tandem"]["childSessionId"] == child_id)
    );
    assert_eq!(
        task_updates
            .iter()
            .find(|u| u["status"] == "pending")
            .unwrap()["title"],
        "Find the readme"
    );
    let nested = format!("{child_id}/c_glob");
    let child_call = calls
        .iter()
        .find(|c| c["toolCallId"] == nested.as_str())
        .expect("the child's call is shown");
    assert_eq!(
        child_call["_meta"]["tandem"],
        json!({"parentToolCallId": "call_task", "childSessionId": child_id})
    );
    assert!(
        agent.updates.iter().all(|u| u["sessionId"] == session),
        "everything on the session the editor knows"
    );
    let summary = task_updates
        .iter()
        .filter_map(|u| u["content"][0]["content"]["text"].as_str())
        .find(|t| t.starts_with('✓'))
        .unwrap()
        .to_owned();
    assert_eq!(summary, "✓ glob *.md");

    // The child is a real session: it loads with its history.
    let mut other = env.spawn();
    other.initialize().await;
    other
        .request(
            "session/load",
            json!({"sessionId": child_id, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert_eq!(other.agent_text(), "README.md is at the root.");
}

#[tokio::test]
async fn several_tasks_in_one_message_run_in_parallel() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_calls(&[
        ("t1", "task", &task("First", "Job number one", "general")),
        ("t2", "task", &task("Second", "Job number two", "general")),
    ]));
    // Each child's answer is held until both children have asked: run one after the other,
    // the first would wait for the second forever (and the test would time out).
    let both_asked = crate::support::mock_llm::Gate::default();
    mock.push_for(
        "Job number one",
        openai_text(&["one ", "done"], "stop").gated(0, &both_asked),
    );
    mock.push_for(
        "Job number two",
        openai_text(&["two ", "done"], "stop").gated(0, &both_asked),
    );
    mock.push(openai_text(&["Both finished."], "stop"));
    let turn = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "do both"}]}),
        )
        .await;
    let children_asked = |mock: &crate::support::MockLlm| {
        mock.requests()
            .iter()
            .filter(|r| {
                r.body["messages"][1]["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("Job number"))
            })
            .count()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while children_asked(&mock) < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "both children start while neither has finished"
        );
        // Keep reading the agent (it must not block on us) while we wait for the mock.
        let _ = tokio::time::timeout(Duration::from_millis(20), agent.next_message()).await;
    }
    both_asked.open();
    let response = agent.response(turn).await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let results = tool_results(&mock, 3);
    assert!(
        results[0].contains("<task_result>\none done\n</task_result>"),
        "{results:?}"
    );
    assert!(
        results[1].contains("<task_result>\ntwo done\n</task_result>"),
        "{results:?}"
    );
}

#[tokio::test]
async fn task_id_resumes_the_child_with_its_history_and_only_for_its_parent() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "a",
        "task",
        &[&task("Count", "Count the files", "general")],
    ));
    mock.push_for(
        "Count the files",
        openai_text(&["There are 2 files."], "stop"),
    );
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "count").await;
    let child_id = tool_results(&mock, 2)[0]
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_owned();

    let resume = json!({"description": "Recount", "prompt": "And now?", "subagent_type": "general", "task_id": child_id}).to_string();
    mock.push(openai_tool_call("b", "task", &[&resume]));
    mock.push_for("Count the files", openai_text(&["Still 2."], "stop"));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "again").await;
    let child_request = &mock.requests()[4].body["messages"];
    let history: Vec<Value> = child_request.as_array().unwrap()[1..].to_vec();
    assert_eq!(
        history,
        [
            json!({"role": "user", "content": "Count the files"}),
            json!({"role": "assistant", "content": "There are 2 files."}),
            json!({"role": "user", "content": "And now?"}),
        ]
    );
    assert!(
        tool_results(&mock, 5)
            .last()
            .unwrap()
            .contains(&format!("task_id: {child_id}"))
    );

    // Another session's child cannot be resumed from here.
    let stranger = agent.new_session(&_env.project).await;
    let steal = json!({"description": "Steal", "prompt": "x", "subagent_type": "general", "task_id": child_id}).to_string();
    mock.push(openai_tool_call("c", "task", &[&steal]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&stranger, "steal").await;
    assert_eq!(
        tool_results(&mock, 7).last().unwrap(),
        &format!(
            "Cannot resume session: not a child of caller session. Session \"{child_id}\" is not owned by this caller."
        )
    );
}

#[tokio::test]
async fn unknown_agents_are_an_error_listing_the_valid_ones() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "x",
        "task",
        &[&task("Nope", "x", "wizard")],
    ));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "go").await;
    assert_eq!(
        tool_results(&mock, 1),
        [
            "Unknown agent type: wizard is not a valid agent type. Valid agent types: explore, general."
        ]
    );
    // The task tool's description lists the subagents the caller may use.
    let tools = mock.requests()[0].body["tools"].clone();
    let description = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "task")
        .unwrap()["function"]["description"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(description.ends_with("Available agent types:\n- explore: Fast agent for exploring a codebase: finds files by pattern, searches code, answers questions about it. Say how thorough to be: quick, medium or very thorough.\n- general: General-purpose agent for researching complex questions and carrying out multi-step tasks; several can run in parallel."), "{description}");
}

#[tokio::test]
async fn nested_delegation_follows_budgets_and_callability() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"agent": json!({
            "lead": {"mode": "subagent", "description": "Leads", "task_budget": 2},
            "helper": {"mode": "subagent", "description": "Helps", "callable_by_subagents": true},
            "loner": {"mode": "subagent", "description": "Alone"}
        })}),
    )
    .await;
    mock.push(openai_tool_call(
        "p",
        "task",
        &[&task("Lead", "Lead the work", "lead")],
    ));
    // The lead calls helper three times (budget 2), then loner, in one message each.
    mock.push_for(
        "Lead the work",
        openai_tool_call("l1", "task", &[&task("H1", "Help one", "helper")]),
    );
    mock.push_for("Help one", openai_text(&["helped"], "stop"));
    mock.push_for(
        "Lead the work",
        openai_tool_call("l2", "task", &[&task("H2", "Help two", "helper")]),
    );
    mock.push_for("Help two", openai_text(&["helped"], "stop"));
    mock.push_for(
        "Lead the work",
        openai_tool_call("l3", "task", &[&task("H3", "Help three", "helper")]),
    );
    mock.push_for(
        "Lead the work",
        openai_tool_call("l4", "task", &[&task("L", "Alone", "loner")]),
    );
    mock.push_for("Lead the work", openai_text(&["lead done"], "stop"));
    // The helper itself has no budget.
    mock.push(openai_text(&["all done"], "stop"));
    agent.prompt(&session, "go").await;
    let lead_results: Vec<String> = mock
        .requests()
        .iter()
        .rfind(|r| r.body["messages"][1]["content"] == "Lead the work")
        .map(|r| {
            r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["content"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap();
    assert!(lead_results[0].contains("<task_result>\nhelped\n</task_result>"));
    assert!(lead_results[1].contains("<task_result>\nhelped\n</task_result>"));
    assert_eq!(
        lead_results[2],
        "Task budget exhausted (2/2 calls). Return control to caller to continue."
    );
    assert_eq!(
        lead_results[3],
        "Target \"loner\" is not callable by subagents. Set callable_by_subagents: true on the target agent to enable."
    );
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let used: i64 = conn
        .query_row("SELECT max(used) FROM task_budget", [], |r| r.get(0))
        .unwrap();
    assert_eq!(used, 2, "the budget is counted in the store");
}

#[tokio::test]
async fn a_subagent_without_a_budget_cannot_delegate() {
    let (mock, _env, mut agent, session) =
        crate::support::start_with("openai", json!({"agent": json!({"solo": {"mode": "subagent", "description": "Solo", "permission": {"task": "allow"}}})})).await;
    mock.push(openai_tool_call(
        "p",
        "task",
        &[&task("Solo", "Work alone", "solo")],
    ));
    mock.push_for(
        "Work alone",
        openai_tool_call("s1", "task", &[&task("Sub", "Nested", "general")]),
    );
    mock.push_for("Work alone", openai_text(&["done"], "stop"));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "go").await;
    let solo = mock
        .requests()
        .into_iter()
        .filter(|r| r.body["messages"][1]["content"] == "Work alone")
        .last()
        .unwrap();
    let result = solo.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .clone();
    assert_eq!(
        result,
        "Caller has no task budget configured. Set task_budget > 0 on the calling agent to enable nested delegation."
    );
}

#[tokio::test]
async fn a_childs_permission_prompt_reaches_the_editor_on_the_parent_session() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    agent.permission_choice = Some("allow_once".into());
    let marker = env.root.path().join("child-ran");
    mock.push(openai_tool_call(
        "t",
        "task",
        &[&task("Touch", "Touch the marker", "general")],
    ));
    mock.push_for(
        "Touch the marker",
        openai_tool_call(
            "b",
            "bash",
            &[&json!({"command": format!("touch {}", marker.display())}).to_string()],
        ),
    );
    mock.push(openai_text(&["touched"], "stop"));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "go").await;
    let requests = agent.permission_requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["params"]["sessionId"], session);
    let child_id = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await["result"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        requests[0]["params"]["toolCall"]["toolCallId"],
        format!("{child_id}/b")
    );
    assert!(marker.exists(), "the answer reached the child");
}

#[tokio::test]
async fn cancelling_the_parent_stops_a_running_child() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "t",
        "task",
        &[&task("Slow", "Think slowly", "general")],
    ));
    mock.push_for(
        "Think slowly",
        openai_text(&["thinking ", "forever"], "stop").hang_after(2),
    );
    let id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    // Wait until the child's stream has begun.
    for _ in 0..500 {
        if mock.requests().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(id).await;
    assert_eq!(response["result"]["stopReason"], "cancelled");
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let mut finish = String::new();
    for _ in 0..50 {
        finish = conn
            .query_row(
                "SELECT json_extract(m.data, '$.finish') FROM message m JOIN session s ON s.id = m.session_id
                 WHERE s.parent_id = ?1 AND m.role = 'assistant'",
                [&session],
                |r| r.get::<_, Option<String>>(0),
            )
            .ok()
            .flatten()
            .unwrap_or_default();
        if !finish.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(finish, "cancelled", "the child's turn was cancelled too");
}

#[tokio::test]
async fn an_at_mention_delegates_even_where_task_is_denied() {
    let (mock, _env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"task": "deny"}})).await;
    mock.push(openai_text(&["no tasks here"], "stop"));
    agent.prompt(&session, "hello").await;
    let tools = mock.requests()[0].body["tools"].clone();
    assert!(
        !tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["function"]["name"] == "task"),
        "task is denied outright"
    );

    mock.push(openai_tool_calls(&[
        ("m1", "task", &task("Look", "Find main", "explore")),
        ("m2", "task", &task("Other", "Not asked for", "general")),
    ]));
    mock.push_for("Find main", openai_text(&["main is in src"], "stop"));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "@explore where is main?").await;
    let request = mock.requests()[1].body.clone();
    let user = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()
        .to_string();
    assert!(
        user.contains("The user asked for the @explore agent"),
        "{user}"
    );
    let results = tool_results(&mock, 3);
    assert!(
        results[0].contains("<task_result>\nmain is in src\n</task_result>"),
        "{results:?}"
    );
    assert!(
        results[1].starts_with("The user's permission rules deny task `general`"),
        "{results:?}"
    );
}

#[tokio::test]
async fn a_failing_child_is_a_failed_task_with_the_reason() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "t",
        "task",
        &[&task("Break", "Break please", "general")],
    ));
    mock.push_for(
        "Break please",
        crate::support::MockResponse::status(400, r#"{"error":{"message":"context too long"}}"#),
    );
    mock.push(openai_text(&["it failed"], "stop"));
    let response = agent.prompt(&session, "go").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(
        tool_results(&mock, 2),
        ["The subagent failed: mock answered HTTP 400: context too long"]
    );
    assert_eq!(
        call_updates(&agent, "t").last().unwrap()["status"],
        "failed"
    );
}

#[tokio::test]
async fn editors_that_follow_subagents_get_them_the_protocols_way() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"bash": "ask"});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    let init = agent
        .request(
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {"subagents": {}}}),
        )
        .await;
    assert!(init.get("result").is_some());
    let session = agent.new_session(&env.project).await;
    agent.permission_choice = Some("allow_once".into());
    mock.push(openai_tool_call(
        "t",
        "task",
        &[&task("Echo", "Echo something", "general")],
    ));
    mock.push_for(
        "Echo something",
        openai_tool_call("b", "bash", &[r#"{"command": "echo hi"}"#]),
    );
    mock.push(openai_text(&["echoed"], "stop"));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "go").await;
    let announce_at = agent
        .updates
        .iter()
        .position(|u| u["update"]["sessionUpdate"] == "subagent_update")
        .expect("the child is announced");
    let announce = agent.updates[announce_at].clone();
    let child = announce["update"]["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(announce["sessionId"], session, "on the parent session");
    assert_eq!(announce["update"]["title"], "Echo");
    assert_eq!(announce["update"]["description"], "@general subagent");
    assert_eq!(
        announce["update"]["state"]["state"], "running",
        "{announce}"
    );
    let first_child = agent
        .updates
        .iter()
        .position(|u| u["sessionId"] == child.as_str())
        .unwrap();
    assert!(
        announce_at < first_child,
        "announced before any child traffic"
    );
    let child_call = agent
        .updates
        .iter()
        .find(|u| u["sessionId"] == child.as_str() && u["update"]["sessionUpdate"] == "tool_call")
        .unwrap();
    assert_eq!(
        child_call["update"]["toolCallId"], "b",
        "under the child's own session and id"
    );
    let prompt = &agent.permission_requests()[0]["params"];
    assert_eq!(prompt["sessionId"], child);
    assert_eq!(prompt["toolCall"]["toolCallId"], "b");
    let idle = agent
        .updates
        .iter()
        .rfind(|u| u["update"]["sessionUpdate"] == "subagent_update")
        .unwrap();
    assert_eq!(idle["update"]["state"]["state"], "idle", "{idle}");
    // While the child's prompt was open it waited on the person, then ran again.
    let states: Vec<&str> = agent
        .updates
        .iter()
        .filter(|u| u["update"]["sessionUpdate"] == "subagent_update")
        .map(|u| u["update"]["state"]["state"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(states, ["running", "requires_action", "running", "idle"]);
    let asked_at = agent
        .received
        .iter()
        .position(|m| m["method"] == "session/request_permission")
        .unwrap();
    let waiting_at = agent
        .received
        .iter()
        .position(|m| m["params"]["update"]["state"]["state"] == "requires_action")
        .unwrap();
    assert!(waiting_at < asked_at, "said before the prompt arrives");
}

#[tokio::test]
async fn subtask_commands_delegate_at_once() {
    let (mock, _env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"permission": {"task": "deny"},
               "command": {"review": {"template": "Review $ARGUMENTS carefully", "description": "Review code", "agent": "explore", "subtask": true},
                           "sketch": {"template": "Sketch a plan for $ARGUMENTS", "agent": "plan"}}}),
    )
    .await;
    mock.push_for(
        "Review src/a.rs carefully",
        openai_text(&["Looks fine."], "stop"),
    );
    mock.push(openai_text(&["The reviewer says it looks fine."], "stop"));
    let response = agent.prompt(&session, "/review src/a.rs").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    assert_eq!(
        requests.len(),
        2,
        "the child, then the parent answering: no model call chose the task"
    );
    assert_eq!(
        requests[0].body["messages"][1],
        json!({"role": "user", "content": "Review src/a.rs carefully"})
    );
    assert_eq!(
        requests[1].body["messages"][1],
        json!({"role": "user", "content": "Review src/a.rs carefully"})
    );
    assert!(tool_results(&mock, 1)[0].contains("<task_result>\nLooks fine.\n</task_result>"));
    assert_eq!(agent.updates_of("tool_call")[0]["title"], "task");
    assert!(
        call_updates(
            &agent,
            agent.updates_of("tool_call")[0]["toolCallId"]
                .as_str()
                .unwrap()
        )
        .iter()
        .any(|u| u["title"] == "Review code")
    );

    // A command for a primary agent runs the turn as that agent.
    mock.push(openai_text(&["A sketch."], "stop"));
    agent.prompt(&session, "/sketch caching").await;
    let request = &mock.requests()[2].body;
    let user = request["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(
        user.contains("Sketch a plan for caching") && user.contains("Plan mode is active"),
        "{user}"
    );
}

#[tokio::test]
async fn a_childs_file_requests_name_the_session_the_editor_knows() {
    for native in [false, true] {
        let mock = MockLlm::start().await;
        let env = TestEnv::new();
        env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
        let mut agent = env.spawn();
        agent.editor = Some(Default::default());
        let mut capabilities = json!({"fs": {"readTextFile": true, "writeTextFile": true}});
        if native {
            capabilities["subagents"] = json!({});
        }
        agent.initialize_with(capabilities).await;
        let session = agent.new_session(&env.project).await;
        mock.push(openai_tool_call(
            "t",
            "task",
            &[&task("Note", "Write the note", "general")],
        ));
        mock.push_for(
            "Write the note",
            openai_tool_call(
                "w",
                "write",
                &[r#"{"filePath": "notes/child.txt", "content": "from the child\n"}"#],
            ),
        );
        mock.push(openai_text(&["written"], "stop"));
        mock.push(openai_text(&["ok"], "stop"));
        agent.prompt(&session, "go").await;
        let child = agent
            .request("_tandem/session/children", json!({"sessionId": session}))
            .await["result"]["sessions"][0]["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let write = agent
            .received
            .iter()
            .find(|m| m["method"] == "fs/write_text_file")
            .expect("the child wrote through the editor")
            .clone();
        let expected = if native { &child } else { &session };
        assert_eq!(
            write["params"]["sessionId"],
            expected.as_str(),
            "native: {native}"
        );
        assert_eq!(
            std::fs::read_to_string(env.project.join("notes/child.txt")).unwrap(),
            "from the child\n"
        );
    }
}
