//! Any ACP agent as a subagent, through the binary: another `tandem acp` (on the same mock
//! provider) configured with an `acp` block runs a task in a child session the editor sees
//! nested; its file writes and commands come back to the parent, which judges them under its
//! own rules, records them for `/undo`, and ends its process when the work is done.

use std::path::Path;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv, call_updates};
use serde_json::{Value, json};

fn task(description: &str, prompt: &str, agent: &str) -> String {
    json!({"description": description, "prompt": prompt, "subagent_type": agent}).to_string()
}

/// A project whose `inner` subagent is another Tandem over ACP, with its own data folder and
/// the `acp` keys of `acp`, plus `extra` config.
async fn start_with_inner(acp: Value, extra: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    let inner_data = env.root.path().join("inner-data");
    config["agent"] = json!({
        "inner": {
            "description": "Another Tandem, over ACP",
            "mode": "subagent",
            "acp": {
                "command": [env!("CARGO_BIN_EXE_tandem"), "acp"],
                "env": {"TANDEM_DATA_DIR": inner_data.display().to_string()}
            }
        }
    });
    for (key, value) in acp.as_object().unwrap() {
        config["agent"]["inner"]["acp"][key] = value.clone();
    }
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
    // The inner Tandem keeps its own answers: the person trusted the folder there too.
    let trusted = env
        .command(&["trust"])
        .env("TANDEM_DATA_DIR", &inner_data)
        .output()
        .unwrap();
    assert!(trusted.status.success());
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// The id of `session`'s first child session.
async fn first_child(agent: &mut AcpProcess, session: &str) -> String {
    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    children["result"]["sessions"][0]["sessionId"]
        .as_str()
        .expect("a child session")
        .to_owned()
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

/// Processes whose command line mentions `needle`.
fn processes_with(needle: &Path) -> Vec<String> {
    let needle = needle.display().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("environ")).ok())
        .map(|env| String::from_utf8_lossy(&env).into_owned())
        .filter(|env| env.contains(&needle))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tandem_runs_a_task_shown_nested_and_its_write_is_checked_and_undoable() {
    let (mock, env, mut agent, session) = start_with_inner(json!({}), json!({})).await;
    mock.push(openai_tool_call(
        "call_task",
        "task",
        &[&task("Write the note", "INNER: write note.txt", "inner")],
    ));
    mock.push_for(
        "INNER: write note.txt",
        openai_tool_call(
            "w1",
            "write",
            &[r#"{"filePath": "note.txt", "content": "from the inner agent\n"}"#],
        ),
    );
    mock.push_for(
        "INNER: write note.txt",
        openai_text(&["Wrote note.txt."], "stop"),
    );
    mock.push(openai_text(&["The inner agent wrote it."], "stop"));
    let response = agent.prompt(&session, "have inner write a note").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("note.txt")).unwrap(),
        "from the inner agent\n"
    );

    let child_id = first_child(&mut agent, &session).await;
    // The inner Tandem's own words, its note on the files it changed included.
    let results = tool_results(&mock, 3);
    assert_eq!(
        results,
        [format!(
            "task_id: {child_id} (for resuming to continue this task if needed)\n\n<task_result>\nWrote note.txt.\n\n1 file changed (+1 −0). /undo reverts this turn.\n\n</task_result>"
        )]
    );
    // The inner agent's write call is shown nested under the task, with its diff.
    let nested = format!("{child_id}/w1");
    let calls = agent.updates_of("tool_call");
    let shown = calls
        .iter()
        .find(|c| c["toolCallId"] == nested.as_str())
        .unwrap_or_else(|| panic!("the inner call is shown: {calls:#?}"));
    assert_eq!(
        shown["_meta"]["tandem"],
        json!({"parentToolCallId": "call_task", "childSessionId": child_id})
    );
    let done = call_updates(&agent, &nested);
    assert!(
        done.iter().any(|u| u["status"] == "completed"
            && u["content"][0]["type"] == "diff"
            && u["content"][0]["newText"] == "from the inner agent\n"),
        "{done:#?}"
    );
    assert!(agent.agent_text().contains("The inner agent wrote it."));

    // The child is a real session: another editor loads it with the inner agent's work.
    let mut other = env.spawn();
    other.initialize().await;
    other
        .request(
            "session/load",
            json!({"sessionId": child_id, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(
        other.agent_text().starts_with("Wrote note.txt."),
        "{}",
        other.agent_text()
    );
    let replayed = other.updates_of("tool_call");
    assert!(
        replayed
            .iter()
            .any(|c| c["toolCallId"] == "w1" && c["kind"] == "edit"),
        "{replayed:#?}"
    );
    other.shutdown().await;

    // `/undo` in the parent takes the inner agent's file away.
    let undone = agent.prompt(&session, "/undo").await;
    assert_eq!(undone["result"]["stopReason"], "end_turn", "{undone}");
    assert!(!env.project.join("note.txt").exists());

    // Closing the editor ends the inner agent's process.
    let inner_data = env.root.path().join("inner-data");
    assert!(
        !processes_with(&inner_data).is_empty(),
        "the inner agent runs"
    );
    agent.shutdown().await;
    let gone = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        processes_with(&inner_data).is_empty()
    });
    assert!(gone, "no inner agent is left");
}

/// The test agent (`examples/acp_test_agent.rs`).
fn test_agent_path() -> std::path::PathBuf {
    crate::support::example_path("acp_test_agent")
}

/// A project whose `probe` subagent is the test agent running `steps`, with `acp` keys and
/// `extra` config added.
async fn start_with_probe(
    steps: impl Fn(&TestEnv) -> String,
    acp: Value,
    extra: Value,
) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let steps = steps(&env);
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    let mut block = json!({
        "command": [test_agent_path()],
        "env": {"ACP_TEST_STEPS": steps}
    });
    for (key, value) in acp.as_object().unwrap() {
        if key == "env" {
            for (name, v) in value.as_object().unwrap() {
                block["env"][name] = v.clone();
            }
        } else {
            block[key] = value.clone();
        }
    }
    config["agent"] =
        json!({"probe": {"description": "The test agent", "mode": "subagent", "acp": block}});
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_requests_meet_the_callers_rules() {
    let steps = |env: &TestEnv| {
        let outside = env.data.join("outside.txt");
        let inside = env.project.join("inside.txt");
        let dotenv = env.project.join(".env");
        std::fs::write(&dotenv, "SECRET=1\n").unwrap();
        // A folder in the project that is really Tandem's data folder, outside it.
        std::os::unix::fs::symlink(&env.data, env.project.join("linked")).unwrap();
        let through_link = env.project.join("linked").join("escaped.txt");
        format!(
            "write:{};write:{};write:{};read:{};ask:curl http://example.com;ask:ls -la;\
             run:echo hello there;run:curl http://example.com;plan;usage",
            outside.display(),
            through_link.display(),
            inside.display(),
            dotenv.display()
        )
    };
    let rules = json!({"permission": {
        "external_directory": "deny",
        "read": {"*.env": "deny"},
        "bash": {"*": "allow", "curl *": "deny"}
    }});
    let (mock, env, mut agent, session) = start_with_probe(steps, json!({}), rules).await;
    let outside = env.data.join("outside.txt");
    let result = delegate(&mock, &mut agent, &session, "probe").await;
    let lines: Vec<&str> = result.lines().collect();
    let find = |prefix: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line for {prefix}: {result}"))
            .to_string()
    };
    assert!(find("write /").contains("refused"), "{result}");
    assert!(!outside.exists(), "nothing written outside the project");
    assert!(
        find(&format!("write {}", env.project.join("linked").display())).contains("refused"),
        "{result}"
    );
    assert!(
        !env.data.join("escaped.txt").exists(),
        "nothing written through the symlink"
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("inside.txt")).unwrap(),
        "written by the test agent\n"
    );
    assert!(find(&format!("read {}", env.project.join(".env").display())).contains("refused"));
    assert_eq!(find("ask curl"), "ask curl http://example.com: no");
    assert_eq!(find("ask ls"), "ask ls -la: yes");
    assert_eq!(
        find("run echo"),
        "run echo hello there: exit Some(0), output \"hello there\""
    );
    assert!(find("run curl").contains("refused"), "{result}");
    assert!(
        agent.permission_requests().is_empty(),
        "the rules decided everything"
    );

    // The child's plan and usage are kept.
    let child_id = first_child(&mut agent, &session).await;
    let todos = agent
        .request("_tandem/session/todo", json!({"sessionId": child_id}))
        .await;
    assert_eq!(
        todos["result"]["todos"][0]["content"], "look around",
        "{todos}"
    );
    let db = rusqlite::Connection::open(env.data.join("tandem.db")).unwrap();
    let cost: f64 = db
        .query_row(
            "SELECT json_extract(data, '$.cost') FROM message WHERE session_id = ?1 AND role = 'assistant'",
            [&child_id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(cost, 0.25);
    // And the parent's session counts what it delegated.
    let parent_cost: f64 = db
        .query_row(
            "SELECT SUM(json_extract(data, '$.cost')) FROM message WHERE session_id = ?1 AND role = 'assistant'",
            [&session],
            |r| r.get(0),
        )
        .unwrap();
    assert!((0.25..0.26).contains(&parent_cost), "{parent_cost}");
}

/// A project with `agents` (name → `acp` block) as subagents, and `extra` config.
async fn start_with_agents(agents: Value, extra: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    for (name, acp) in agents.as_object().unwrap() {
        config["agent"][name] =
            json!({"description": format!("{name} over ACP"), "mode": "subagent", "acp": acp});
    }
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// The test agent running `steps`, with `env` added.
fn probe(steps: &str, env: Value) -> Value {
    let mut block = json!({"command": [test_agent_path()], "env": {"ACP_TEST_STEPS": steps}});
    for (name, value) in env.as_object().unwrap() {
        block["env"][name] = value.clone();
    }
    block
}

/// Runs a task for `agent` and the parent's closing words; what the parent's model was told.
async fn delegate(mock: &MockLlm, agent: &mut AcpProcess, session: &str, to: &str) -> String {
    let id = format!("call_{to}");
    mock.push(openai_tool_call(
        &id,
        "task",
        &[&task(&format!("Ask {to}"), &format!("work, {to}"), to)],
    ));
    mock.push(openai_text(&["The parent goes on."], "stop"));
    let response = agent.prompt(session, &format!("delegate to {to}")).await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    requests.last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_fails_is_named_with_its_stderr_and_the_parent_goes_on() {
    let agents = json!({
        "missing": {"command": ["tandem-test-no-such-agent", "--acp"]},
        "mute": {
            "command": [test_agent_path()],
            "env": {"ACP_TEST_MUTE": "1"},
            "startup_timeout": 1
        },
        "crashing": probe("crash", json!({}))
    });
    let (mock, env, mut agent, session) = start_with_agents(agents, json!({})).await;
    let output = env.command(&["config", "check"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains(
            "  ! missing: `tandem-test-no-such-agent` is not installed or not on PATH \
             (`tandem-test-no-such-agent --acp`)\n"
        ),
        "{out}"
    );
    assert!(out.contains("\n  crashing: `"), "{out}");

    let missing = delegate(&mock, &mut agent, &session, "missing").await;
    assert_eq!(
        missing,
        "The subagent failed: The agent `missing` (`tandem-test-no-such-agent --acp`) \
         `tandem-test-no-such-agent` was not found: is it installed and on PATH?"
    );

    let mute = delegate(&mock, &mut agent, &session, "mute").await;
    assert!(
        mute.contains("did not answer `initialize` within 1 s, and was stopped.")
            && mute.contains("The last lines it wrote to stderr:\n    the test agent starts"),
        "{mute}"
    );

    let crashed = delegate(&mock, &mut agent, &session, "crashing").await;
    assert!(
        crashed.starts_with("The subagent failed: The agent `crashing` (")
            && crashed.contains("exited (exit status: 3) before it finished.")
            && crashed.contains("boom: the test agent broke on purpose"),
        "{crashed}"
    );
    // The person reads it too, and the parent's turn still ended with its own words.
    let failed = agent
        .updates
        .iter()
        .filter(|u| u["update"]["status"] == "failed")
        .count();
    assert_eq!(failed, 3, "each task call failed in the editor too");
    assert!(agent.agent_text().ends_with("The parent goes on."));
}

/// Starts a prompt whose task runs `to` (which works until stopped); returns the request id
/// once the agent's process runs.
async fn start_endless_task(
    agent: &mut AcpProcess,
    mock: &MockLlm,
    session: &str,
    to: &str,
    mark: &str,
) -> i64 {
    mock.push(openai_tool_call(
        "call_slow",
        "task",
        &[&task("Slow", "work slowly", to)],
    ));
    mock.push(openai_text(&["Stopped."], "stop"));
    let id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    for _ in 0..500 {
        if !processes_with(Path::new(mark)).is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        !processes_with(Path::new(mark)).is_empty(),
        "the agent runs"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    id
}

/// Whether every process carrying `mark` is gone within two seconds.
async fn all_gone(mark: &str) -> bool {
    for _ in 0..100 {
        if processes_with(Path::new(mark)).is_empty() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_ends_the_task_within_a_second_and_kills_an_agent_that_ignores_it() {
    let env_root = tempfile::tempdir().unwrap();
    let mark = env_root.path().join("hanging-agent").display().to_string();
    let agents = json!({"slow": probe("hang", json!({"ACP_TEST_MARK": mark}))});
    let (mock, env, mut agent, session) = start_with_agents(agents, json!({})).await;
    let id = start_endless_task(&mut agent, &mock, &session, "slow", &mark).await;
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(id).await;
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
    assert!(
        all_gone(&mark).await,
        "the agent that ignored the cancel was killed"
    );
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let mut finish = String::new();
    for _ in 0..100 {
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
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(finish, "cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_agent_is_left_when_tandem_is_terminated_or_killed() {
    for signal in ["TERM", "KILL"] {
        let env_root = tempfile::tempdir().unwrap();
        let mark = env_root
            .path()
            .join(format!("agent-{signal}"))
            .display()
            .to_string();
        let agents = json!({"slow": probe("hang", json!({"ACP_TEST_MARK": mark}))});
        let (mock, _env, mut agent, session) = start_with_agents(agents, json!({})).await;
        start_endless_task(&mut agent, &mock, &session, "slow", &mark).await;
        let pid = agent.child.id().unwrap().to_string();
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .unwrap();
        assert!(status.success());
        let _ = agent.child.wait().await;
        assert!(all_gone(&mark).await, "no agent left after SIG{signal}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_reaches_the_editor_as_the_childs_question() {
    let agents = json!({"probe": probe("ask:rm -rf build", json!({}))});
    let rules = json!({"permission": {"bash": {"*": "allow", "rm *": "ask"}}});
    let (mock, _env, mut agent, session) = start_with_agents(agents, rules).await;
    agent.permission_choice = Some("allow_once".into());
    let told = delegate(&mock, &mut agent, &session, "probe").await;
    assert!(told.contains("ask rm -rf build: yes"), "{told}");
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1, "{asked:#?}");
    let params = &asked[0]["params"];
    assert_eq!(
        params["sessionId"], session,
        "asked on the session the editor knows"
    );
    assert_eq!(
        params["toolCall"]["rawInput"]["command"], "rm -rf build",
        "{params}"
    );
    // About the agent's own call, which the editor shows nested under the task.
    let call_id = params["toolCall"]["toolCallId"].as_str().unwrap();
    assert!(call_id.ends_with("/run-1"), "{params}");
    assert!(
        agent
            .updates_of("tool_call")
            .iter()
            .any(|c| c["toolCallId"] == call_id
                && c["_meta"]["tandem"]["parentToolCallId"] == "call_probe")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_task_id_continues_the_agents_session_even_after_its_process_ended() {
    let (mock, env, mut agent, session) =
        start_with_inner(json!({"idle_timeout": 1}), json!({})).await;
    let first = "INNER: remember the word 'teal'";
    mock.push(openai_tool_call(
        "t1",
        "task",
        &[&task("Remember", first, "inner")],
    ));
    mock.push_for(first, openai_text(&["Noted: teal."], "stop"));
    mock.push(openai_text(&["Asked."], "stop"));
    agent.prompt(&session, "remember").await;
    let child = first_child(&mut agent, &session).await;
    let inner_pid = processes_with(&env.root.path().join("inner-data")).len();
    assert_eq!(inner_pid, 1, "one inner agent runs");

    // The same task id: the same process, the same session (its history holds the first).
    let again = json!({"description": "Recall", "prompt": "INNER-2: which word?",
                       "subagent_type": "inner", "task_id": child})
    .to_string();
    mock.push(openai_tool_call("t2", "task", &[&again]));
    mock.push_for(first, openai_text(&["It was teal."], "stop"));
    mock.push(openai_text(&["Recalled."], "stop"));
    agent.prompt(&session, "recall").await;
    assert!(tool_results(&mock, mock.requests().len() - 1)[1].contains("It was teal."));
    let inner_request = &mock.requests()[mock.requests().len() - 2].body;
    let text = inner_request.to_string();
    assert!(
        text.contains("Noted: teal.") && text.contains("INNER-2: which word?"),
        "{text}"
    );

    // Idle past its `idle_timeout`, the process ends; the next task loads the session again.
    let inner_data = env.root.path().join("inner-data");
    let mut ended = false;
    for _ in 0..60 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        if processes_with(&inner_data).is_empty() {
            ended = true;
            break;
        }
    }
    assert!(ended, "the idle agent was ended");
    let third = json!({"description": "Recall again", "prompt": "INNER-3: and now?",
                       "subagent_type": "inner", "task_id": child})
    .to_string();
    mock.push(openai_tool_call("t3", "task", &[&third]));
    mock.push_for(first, openai_text(&["Still teal."], "stop"));
    mock.push(openai_text(&["Done."], "stop"));
    agent.prompt(&session, "recall again").await;
    let inner_request = mock.requests()[mock.requests().len() - 2].body.to_string();
    assert!(
        inner_request.contains("It was teal.") && inner_request.contains("INNER-3: and now?"),
        "the new process loaded the session: {inner_request}"
    );
    let results = tool_results(&mock, mock.requests().len() - 1);
    assert!(
        results.last().unwrap().contains("Still teal."),
        "{results:?}"
    );
    assert!(!results.last().unwrap().contains("started a new one"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_gets_the_callers_mcp_servers_but_not_a_sandboxed_one() {
    let server = crate::support::example_path("mcp_test_server");
    let agents = json!({"probe": probe("mcp", json!({}))});
    // `secret`'s `echo` tool is denied to the caller: the agent would call it past the rules.
    let extra = json!({"mcp": {
        "notes": {"type": "local", "command": [server]},
        "boxed": {"type": "local", "command": [server], "sandbox": true},
        "secret": {"type": "local", "command": [server]}
    }, "permission": {"secret_echo": "deny"}});
    let (mock, _env, mut agent, session) = start_with_agents(agents, extra).await;
    let told = delegate(&mock, &mut agent, &session, "probe").await;
    assert!(told.contains("mcp: notes\n"), "{told}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inner_agents_command_runs_in_the_editors_terminal_shown_on_its_call() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["agent"] = json!({"inner": {"mode": "subagent", "description": "another Tandem",
        "acp": {"command": [env!("CARGO_BIN_EXE_tandem"), "acp"],
                "env": {"TANDEM_DATA_DIR": env.root.path().join("inner-data")}}}});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.editor = Some(Default::default());
    agent.initialize_with(json!({"terminal": true})).await;
    let session = agent.new_session(&env.project).await;
    let prompt = "INNER: run echo";
    mock.push(openai_tool_call(
        "t",
        "task",
        &[&task("Echo", prompt, "inner")],
    ));
    mock.push_for(
        prompt,
        openai_tool_call(
            "b1",
            "bash",
            &[r#"{"command": "echo from-the-inner-agent"}"#],
        ),
    );
    mock.push_for(prompt, openai_text(&["Ran it."], "stop"));
    mock.push(openai_text(&["Done."], "stop"));
    let response = agent.prompt(&session, "go").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    // The inner model read the command's output, which ran in the editor's terminal.
    let inner_result = mock.requests()[2].body.to_string();
    assert!(
        inner_result.contains("from-the-inner-agent"),
        "{inner_result}"
    );
    let child = first_child(&mut agent, &session).await;
    let updates = call_updates(&agent, &format!("{child}/b1"));
    assert!(
        updates
            .iter()
            .any(|u| u["content"].as_array().is_some_and(|c| c
                .iter()
                .any(|c| c["type"] == "terminal" && c["terminalId"] == "term-1"))),
        "{updates:#?}"
    );
}

/// A project whose `probe` agent puts a form to its client, `extra` config added, and an
/// editor that offers forms and answers Blue and Yes.
async fn start_with_form(extra: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["agent"] = json!({"probe": {"mode": "subagent", "description": "the test agent",
        "acp": probe("elicit", json!({}))}});
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent
        .initialize_with(json!({"elicitation": {"form": {}}}))
        .await;
    let session = agent.new_session(&env.project).await;
    // The editor picks the second colour and says yes, in the fields Tandem's form has.
    agent.elicitation_reply =
        Some(json!({"action": "accept", "content": {"q1": "Blue", "q2": "Yes"}}));
    (mock, env, agent, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_form_reaches_the_editor_and_the_answers_go_back() {
    let (mock, _env, mut agent, session) = start_with_form(json!({})).await;
    let told = delegate(&mock, &mut agent, &session, "probe").await;
    assert!(
        told.contains(r#"elicit: {"action":"accept","content":{"color":"blue","sure":true}}"#),
        "{told}"
    );
    let asked: Vec<&Value> = agent
        .received
        .iter()
        .filter(|m| m["method"] == "elicitation/create")
        .collect();
    assert_eq!(asked.len(), 1);
    let form = &asked[0]["params"];
    assert_eq!(form["sessionId"], session, "{form}");
    assert_eq!(
        form["requestedSchema"]["properties"]["q1"]["title"], "Colour",
        "{form}"
    );
    assert_eq!(
        form["requestedSchema"]["properties"]["q1"]["description"],
        "Which colour?"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_started_from_plan_mode_writes_nothing_in_the_project_even_by_itself() {
    let steps = |env: &TestEnv| {
        let p = |name: &str| env.project.join(name).display().to_string();
        format!(
            "own:{};write:{};run:touch {}",
            p("own.txt"),
            p("via-fs.txt"),
            p("via-run.txt")
        )
    };
    let everything = json!({"permission": {"bash": "allow", "edit": "allow"}});
    let (mock, env, mut agent, session) = start_with_probe(steps, json!({}), everything).await;
    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    let result = delegate(&mock, &mut agent, &session, "probe").await;
    for name in ["own.txt", "via-fs.txt", "via-run.txt"] {
        assert!(!env.project.join(name).exists(), "{name} written: {result}");
    }
    assert!(result.contains("own.txt: refused"), "{result}");
    assert!(result.contains("via-fs.txt: refused"), "{result}");

    // The same agent in build mode: its own write lands (it is started again, unconfined).
    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "build"}),
        )
        .await;
    let result = delegate(&mock, &mut agent, &session, "probe").await;
    assert!(env.project.join("own.txt").exists(), "{result}");
    assert!(env.project.join("via-fs.txt").exists(), "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_questions_meet_the_callers_question_rule() {
    let (mock, _env, mut agent, session) =
        start_with_form(json!({"permission": {"question": "deny"}})).await;
    let told = delegate(&mock, &mut agent, &session, "probe").await;
    assert!(!told.contains(r#""action":"accept""#), "{told}");
    let asked = agent
        .received
        .iter()
        .filter(|m| {
            m["method"] == "elicitation/create" || m["method"] == "session/request_permission"
        })
        .count();
    assert_eq!(asked, 0, "the editor was asked despite the deny rule");
}
