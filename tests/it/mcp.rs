//! The editor's MCP servers through the real binary, with a test server built on rmcp's server
//! side (`examples/mcp_test_server.rs`): its tools reach the model as `<server>_<tool>` and run
//! through the permission rules; a server that fails is reported and the session still answers;
//! a slow server does not slow `session/new` but is waited for by the first prompt; closing
//! stdin ends every server process.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::support::mock_llm::{openai_text, openai_tool_calls};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

/// The test server (`examples/mcp_test_server.rs`).
fn server_path() -> PathBuf {
    crate::support::example_path("mcp_test_server")
}

fn stdio_server(name: &str, mode: Option<&str>) -> Value {
    let env: Vec<Value> = mode
        .map(|m| json!({"name": "MCP_TEST_MODE", "value": m}))
        .into_iter()
        .collect();
    json!({"name": name, "command": server_path(), "args": [], "env": env})
}

async fn start(permission: Value) -> (MockLlm, TestEnv, AcpProcess) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = permission;
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    (mock, env, agent)
}

async fn new_session(agent: &mut AcpProcess, env: &TestEnv, servers: Vec<Value>) -> String {
    let response = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": servers}),
        )
        .await;
    response["result"]["sessionId"].as_str().unwrap().to_owned()
}

/// The live processes running the test server whose environment holds `marker`.
fn servers_running(marker: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            let environ = std::fs::read(e.path().join("environ")).unwrap_or_default();
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&cmdline).contains("mcp_test_server")
                && String::from_utf8_lossy(&environ).contains(marker)
        })
        .count()
}

#[tokio::test]
async fn the_model_is_offered_and_calls_the_servers_tools() {
    let (mock, env, mut agent) = start(json!({})).await;
    let session = new_session(&mut agent, &env, vec![stdio_server("test", None)]).await;
    mock.push(openai_tool_calls(&[
        ("call_1", "test_echo", r#"{"text":"hello mcp"}"#),
        ("call_2", "test_picture", "{}"),
        ("call_3", "test_fails", "{}"),
    ]));
    mock.push(openai_text(&["Done."], "stop"));
    let response = agent.prompt(&session, "use the tools").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    let names: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    for name in ["test_echo", "test_picture", "test_fails"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let echo = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "test_echo")
        .unwrap()
        .clone();
    assert_eq!(echo["function"]["description"], "Echoes the text back.");
    assert_eq!(echo["function"]["parameters"]["required"], json!(["text"]));
    let results: Vec<Value> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect();
    assert_eq!(results[0]["content"], "echo: hello mcp");
    assert_eq!(results[1]["content"], "a picture");
    assert!(
        results[2]["content"]
            .as_str()
            .unwrap()
            .contains("the tool broke")
    );
    // The picture reaches the model beside its text.
    assert!(
        requests[1]
            .body
            .to_string()
            .contains("data:image/png;base64,iVBORw0KGgo=")
    );
    // The editor sees each call with its title and raw input.
    let titled: Vec<Value> = crate::support::call_updates(&agent, "call_1")
        .into_iter()
        .filter(|u| u.get("title").is_some())
        .collect();
    assert_eq!(
        titled.last().unwrap()["title"],
        "echo: hello mcp",
        "{titled:?}"
    );
    assert!(
        crate::support::call_updates(&agent, "call_1")
            .iter()
            .any(|u| u["rawInput"] == json!({"text": "hello mcp"}))
    );
    let updates = crate::support::call_updates(&agent, "call_3");
    assert_eq!(updates.last().unwrap()["status"], "failed");
}

#[tokio::test]
async fn permission_rules_apply_by_the_tools_full_name() {
    let (mock, env, mut agent) = start(json!({"test_*": "deny", "test_echo": "ask"})).await;
    let session = new_session(&mut agent, &env, vec![stdio_server("test", None)]).await;
    // Denied tools are not even offered; the asked one is asked, and a rejection never runs it.
    mock.push(openai_tool_calls(&[(
        "call_1",
        "test_echo",
        r#"{"text":"x"}"#,
    )]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "echo").await;
    let requests = mock.requests();
    let names: Vec<String> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"test_echo".to_owned()), "{names:?}");
    assert!(!names.contains(&"test_picture".to_owned()), "{names:?}");
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["params"]["toolCall"]["toolCallId"], "call_1");
}

#[tokio::test]
async fn a_rule_binds_to_the_tool_the_person_names_even_after_a_collision() {
    // Two servers whose names sanitise alike: `a.b_echo` and `a b_echo` are both `a_b_echo`
    // to providers, so the second is offered as `a_b_echo_2`.
    let (mock, env, mut agent) = start(json!({"a b_echo": "deny"})).await;
    let servers = vec![stdio_server("a.b", None), stdio_server("a b", None)];
    let session = new_session(&mut agent, &env, servers).await;
    mock.push(openai_tool_calls(&[
        ("call_1", "a_b_echo", r#"{"text":"first"}"#),
        ("call_2", "a_b_echo_2", r#"{"text":"second"}"#),
    ]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "echo twice").await;
    let told: Vec<String> = mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(told[0], "echo: first", "the rule is not for a.b's tool");
    // The denied tool is not even offered.
    assert!(
        told[1].contains("There is no tool named `a_b_echo_2`"),
        "a b's tool is denied: {told:?}"
    );
    // A deny written for the name the collision took is not dodged by the suffix.
    let (mock, env, mut agent) = start(json!({"a_b_echo": "deny"})).await;
    let servers = vec![stdio_server("a.b", None), stdio_server("a b", None)];
    let session = new_session(&mut agent, &env, servers).await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "anything?").await;
    let names: Vec<String> = mock.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("a_b_echo")),
        "{names:?}"
    );
}

#[tokio::test]
async fn plan_mode_asks_before_an_mcp_tool_not_marked_read_only() {
    let (mock, env, mut agent) = start(json!({"*": "allow"})).await;
    let session = new_session(&mut agent, &env, vec![stdio_server("test", None)]).await;
    agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    mock.push(openai_tool_calls(&[
        ("call_1", "test_peek", "{}"),
        ("call_2", "test_patch", "{}"),
    ]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "look, then patch").await;
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["params"]["toolCall"]["toolCallId"], "call_2");
    let first = crate::support::call_updates(&agent, "call_1");
    assert_eq!(first.last().unwrap()["status"], "completed");
    let second = crate::support::call_updates(&agent, "call_2");
    assert_eq!(second.last().unwrap()["status"], "failed");
}

#[tokio::test]
async fn a_failing_server_is_reported_and_the_session_still_answers() {
    let (mock, env, mut agent) = start(json!({})).await;
    let session = new_session(&mut agent, &env, vec![stdio_server("broken", Some("fail"))]).await;
    mock.push(openai_text(&["Still here."], "stop"));
    let response = agent.prompt(&session, "hello").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let text = agent.agent_text();
    assert!(
        text.contains("The MCP server `broken` is not available"),
        "{text}"
    );
    assert!(
        text.contains("test server: cannot open its database"),
        "{text}"
    );
    assert!(text.ends_with("Still here."), "{text}");
    // Told once, not on every prompt.
    mock.push(openai_text(&["Again."], "stop"));
    agent.prompt(&session, "again").await;
    assert_eq!(agent.agent_text().matches("is not available").count(), 1);
}

#[tokio::test]
async fn a_slow_server_does_not_slow_session_new_but_the_first_prompt_waits_for_it() {
    let (mock, env, mut agent) = start(json!({})).await;
    let started = Instant::now();
    let session = new_session(&mut agent, &env, vec![stdio_server("slow", Some("slow"))]).await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hello").await;
    let tools = mock.requests()[0].body["tools"].to_string();
    assert!(
        tools.contains("slow_echo"),
        "the first request waited for the server"
    );
}

#[tokio::test]
async fn config_servers_join_and_closing_stdin_ends_every_server() {
    let (mock, env, mut agent) = start(json!({})).await;
    let marker = format!("tandem-test-{}", std::process::id());
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(env.project.join("tandem.json")).unwrap())
            .unwrap();
    // A different command line (an argument the server ignores): a server of its own.
    config["mcp"] = json!({"configured": {"type": "local",
        "command": [server_path(), "--configured"], "environment": {"MARKER": marker}},
        "same": {"type": "local", "command": [server_path()]}});
    env.write_project_config(&config);
    let mut editor = stdio_server("editor", None);
    editor["env"] = json!([{"name": "MARKER", "value": marker}]);
    let session = new_session(&mut agent, &env, vec![editor]).await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hello").await;
    let tools = mock.requests()[0].body["tools"].to_string();
    assert!(
        tools.contains("editor_echo") && tools.contains("configured_echo"),
        "{tools}"
    );
    assert_eq!(servers_running(&marker), 2);
    agent.shutdown().await;
    let deadline = Instant::now() + Duration::from_secs(2);
    while servers_running(&marker) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(servers_running(&marker), 0, "no server outlives Tandem");
}

#[tokio::test]
async fn closing_the_session_or_sigterm_ends_its_servers() {
    let (mock, env, mut agent) = start(json!({})).await;
    let marker = format!("tandem-close-{}", std::process::id());
    let mut server = stdio_server("test", None);
    server["env"] = json!([{"name": "MARKER", "value": marker}]);
    let first = new_session(&mut agent, &env, vec![server.clone()]).await;
    let second = new_session(&mut agent, &env, vec![server]).await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&first, "hello").await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&second, "hello").await;
    assert_eq!(servers_running(&marker), 2);
    agent
        .request("session/close", json!({"sessionId": first}))
        .await;
    let gone = |n: usize| {
        let marker = marker.clone();
        async move {
            let deadline = Instant::now() + Duration::from_secs(1);
            while servers_running(&marker) > n && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            servers_running(&marker)
        }
    };
    assert_eq!(gone(1).await, 1, "closing a session ends its server");
    let pid = agent.child.id().unwrap() as i32;
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    assert_eq!(
        gone(0).await,
        0,
        "SIGTERM ends every server within a second"
    );
}

/// A process killed when the test ends, even by a panic.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The test server serving Streamable HTTP; its URL.
fn http_server() -> (Killed, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(server_path())
        .env("MCP_TEST_MODE", "http")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().strip_prefix("PORT=").unwrap().to_owned();
    (Killed(child), format!("http://127.0.0.1:{port}/mcp"))
}

#[tokio::test]
async fn streamable_http_servers_connect_with_their_headers_and_sse_is_explained() {
    let (_server, url) = http_server();
    let (mock, env, mut agent) = start(json!({})).await;
    let init = &agent.received[0]["result"]["agentCapabilities"]["mcpCapabilities"];
    assert_eq!(init, &json!({"http": true, "sse": false}));
    let servers = vec![
        json!({"type": "http", "name": "web", "url": url,
               "headers": [{"name": "x-test", "value": "yes"}]}),
        json!({"type": "http", "name": "nokey", "url": url, "headers": []}),
        json!({"type": "sse", "name": "old", "url": url, "headers": []}),
    ];
    let session = new_session(&mut agent, &env, servers).await;
    mock.push(openai_tool_calls(&[(
        "call_1",
        "web_echo",
        r#"{"text":"over http"}"#,
    )]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "echo over http").await;
    let requests = mock.requests();
    let tools = requests[0].body["tools"].to_string();
    assert!(
        tools.contains("web_echo") && !tools.contains("nokey_echo"),
        "{}",
        agent.agent_text()
    );
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .clone();
    assert_eq!(result, "echo: over http");
    let text = agent.agent_text();
    assert!(
        text.contains("The MCP server `nokey` is not available"),
        "{text}"
    );
    assert!(
        text.contains("The MCP server `old` is not available in this session: it uses the old HTTP+SSE transport"),
        "{text}"
    );
}

#[tokio::test]
async fn progress_streams_cancel_reaches_the_server_and_new_tools_appear() {
    let (mock, env, mut agent) = start(json!({})).await;
    let log = env.root.path().join("cancelled.log");
    let mut server = stdio_server("test", None);
    server["env"] = json!([{"name": "MCP_TEST_LOG", "value": log}]);
    let session = new_session(&mut agent, &env, vec![server]).await;

    // Progress notifications become the call's live output.
    mock.push(openai_tool_calls(&[("call_slow", "test_slow", "{}")]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "slow").await;
    let live = crate::support::call_updates(&agent, "call_slow");
    let shown = serde_json::to_string(&live).unwrap();
    for step in 1..=3 {
        assert!(shown.contains(&format!("step {step} of 3")), "{shown}");
    }

    // A new tool list is read before the next step.
    mock.push(openai_tool_calls(&[("call_grow", "test_grow", "{}")]));
    mock.push(openai_tool_calls(&[("call_grown", "test_grown", "{}")]));
    mock.push(openai_text(&["ok"], "stop"));
    let before = mock.requests().len();
    agent.prompt(&session, "grow").await;
    let requests = mock.requests();
    assert!(
        !requests[before].body["tools"]
            .to_string()
            .contains("test_grown")
    );
    assert!(
        requests[before + 1].body["tools"]
            .to_string()
            .contains("test_grown")
    );
    let last = requests[before + 2].body["messages"].to_string();
    assert!(last.contains("the new tool ran"), "{last}");

    // Cancelling a running call tells the server.
    mock.push(openai_tool_calls(&[("call_wait", "test_wait", "{}")]));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "wait"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| {
            u["update"]["toolCallId"] == "call_wait" && u["update"]["status"] == "in_progress"
        })
        .await;
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(prompt).await;
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
    let deadline = Instant::now() + Duration::from_secs(2);
    while !log.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let noted = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(noted, "cancelled cancelled by the person\n");
}

#[tokio::test]
async fn prompts_are_commands_and_resources_can_be_read_or_attached() {
    let (mock, env, mut agent) = start(json!({})).await;
    let session = new_session(&mut agent, &env, vec![stdio_server("test", None)]).await;
    // Once connected, the prompt joins the commands (the whole list is sent again).
    let offered = agent
        .wait_for_update(|u| {
            u["update"]["availableCommands"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["name"] == "test:review"))
        })
        .await;
    let commands = offered["update"]["availableCommands"].as_array().unwrap();
    assert!(commands.iter().any(|c| c["name"] == "compact"));
    let review = commands
        .iter()
        .find(|c| c["name"] == "test:review")
        .unwrap();
    assert_eq!(
        review,
        &json!({"name": "test:review", "description": "Review a file with a focus.",
                "input": {"hint": "file focus"}})
    );

    mock.push(openai_text(&["ok"], "stop"));
    agent
        .prompt(&session, "/test:review src/a.rs error handling")
        .await;
    let sent = mock.requests()[0].body["messages"].to_string();
    assert!(
        sent.contains("Review src/a.rs focusing on error handling."),
        "{sent}"
    );

    // The model reads a resource through the server's read tool.
    mock.push(openai_tool_calls(&[(
        "call_r",
        "test_read_resource",
        r#"{"uri":"memo://notes"}"#,
    )]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "read the notes").await;
    let requests = mock.requests();
    let tools = requests[1].body["tools"].to_string();
    assert!(
        tools.contains("memo://notes"),
        "the read tool lists the resources"
    );
    assert!(
        requests[2].body["messages"]
            .to_string()
            .contains("The notes say: ship on Friday.")
    );

    // The editor attaches it as a resource link: its text goes with the message.
    mock.push(openai_text(&["ok"], "stop"));
    agent
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [
                {"type": "text", "text": "what do the notes say?"},
                {"type": "resource_link", "uri": "memo://notes", "name": "notes"}]}),
        )
        .await;
    let last = mock.requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("The notes say: ship on Friday."), "{last}");
}

#[tokio::test]
async fn a_killed_tandem_takes_its_servers_with_it() {
    let (mock, env, mut agent) = start(json!({})).await;
    let marker = format!("tandem-kill-{}", std::process::id());
    let mut server = stdio_server("test", None);
    server["env"] = json!([{"name": "MARKER", "value": marker}]);
    let session = new_session(&mut agent, &env, vec![server]).await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hello").await;
    assert_eq!(servers_running(&marker), 1);
    agent.child.start_kill().unwrap();
    let deadline = Instant::now() + Duration::from_secs(1);
    while servers_running(&marker) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        servers_running(&marker),
        0,
        "SIGKILL leaves no server behind"
    );
}

#[tokio::test]
async fn a_subagent_gets_its_callers_servers_under_its_own_rules() {
    let (mock, env, mut agent) = start(json!({})).await;
    let session = new_session(&mut agent, &env, vec![stdio_server("test", None)]).await;
    let task = |agent: &str| {
        json!({"description": "Echo", "prompt": format!("Echo as {agent}"), "subagent_type": agent})
            .to_string()
    };
    mock.push(openai_tool_calls(&[
        ("call_general", "task", &task("general")),
        ("call_explore", "task", &task("explore")),
    ]));
    mock.push_for(
        "Echo as general",
        openai_tool_calls(&[("c_echo", "test_echo", r#"{"text":"from a subagent"}"#)]),
    );
    mock.push_for("Echo as general", openai_text(&["echoed"], "stop"));
    mock.push_for("Echo as explore", openai_text(&["read only"], "stop"));
    mock.push(openai_text(&["both done"], "stop"));
    let response = agent.prompt(&session, "delegate").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    let offered = |needle: &str| {
        requests
            .iter()
            .find(|r| r.body["messages"].to_string().contains(needle))
            .map(|r| r.body["tools"].to_string())
            .unwrap_or_default()
    };
    // general may use the caller's MCP tools; explore's rules deny all but its read tools.
    assert!(offered("Echo as general").contains("test_echo"));
    assert!(!offered("Echo as explore").contains("test_echo"));
    let echoed = requests.iter().any(|r| {
        r.body["messages"]
            .to_string()
            .contains("echo: from a subagent")
    });
    assert!(echoed, "the subagent's call reached the caller's server");
    // Both ran as children of the session.
    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    assert_eq!(children["result"]["sessions"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_server_cannot_stand_in_for_a_built_in_tool() {
    let (mock, env, mut agent) = start(json!({})).await;
    // `apply` + `patch` would be `apply_patch`, the built-in patch tool's name.
    let session = new_session(&mut agent, &env, vec![stdio_server("apply", None)]).await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hello").await;
    let tools = mock.requests()[0].body["tools"].clone();
    let named = |name: &str| {
        tools
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["function"]["name"] == name)
            .map(|t| t["function"]["description"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let builtin = named("apply_patch");
    assert_eq!(builtin.len(), 1);
    assert!(builtin[0].starts_with("Applies a patch"), "{builtin:?}");
    assert_eq!(named("apply_patch_2"), ["Pretends to patch."]);
}
