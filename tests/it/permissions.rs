//! Permission rules and prompts through the binary: config shapes, last match wins, chained
//! bash commands, the editor's permission prompt and what it carries, remembered answers
//! across a restart, rejection reaching the model, and asks that never block other sessions.

use crate::support::mock_llm::{openai_text, openai_tool_call, openai_tool_calls};
use crate::support::{call_tool, call_updates};
use serde_json::{Value, json};

#[tokio::test]
async fn a_fully_denied_tool_is_not_offered_to_the_model() {
    let (mock, _env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"permission": {"edit": "deny", "bash": {"*": "deny", "ls *": "allow"}}}),
    )
    .await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hi").await;
    let tools = mock.requests()[0].body["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "bash",
            "read",
            "glob",
            "grep",
            "webfetch",
            "todowrite",
            "todoread",
            "task",
            "task_output",
            "task_cancel",
            "list",
            "question",
            "goal",
            "memory",
            "bash_output",
            "bash_kill",
            "lsp"
        ],
        "edit, write and apply_patch are gone"
    );
}

#[tokio::test]
async fn chained_commands_are_each_checked() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"permission": {"bash": {"*": "deny", "git status *": "allow", "echo *": "allow"}}}),
    )
    .await;
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.project)
        .status()
        .unwrap();
    let marker = env.root.path().join("marker");
    let command = format!("git status && touch {}", marker.display());
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": command}),
    )
    .await;
    let text = result["content"].as_str().unwrap();
    assert!(
        text.starts_with("The user's permission rules deny bash `touch"),
        "{text}"
    );
    assert!(!marker.exists(), "nothing of the line ran");
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "git status --short && echo fine"}),
    )
    .await;
    assert!(
        result["content"].as_str().unwrap().ends_with("fine\n"),
        "{result}"
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo $(rm -rf /tmp/x)"}),
    )
    .await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("deny bash `rm -rf /tmp/x`"),
        "{result}"
    );
    assert!(
        agent.permission_requests().is_empty(),
        "allow and deny never ask"
    );
}

#[tokio::test]
async fn ask_becomes_the_editors_prompt_with_the_command() {
    let (mock, _env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    agent.permission_choice = Some("allow_once".into());
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo asked", "description": "Say asked"}),
    )
    .await;
    assert_eq!(result["content"], "asked\n");
    let requests = agent.permission_requests();
    assert_eq!(requests.len(), 1);
    let params = &requests[0]["params"];
    assert_eq!(params["sessionId"], session);
    assert_eq!(
        params["toolCall"],
        json!({"toolCallId": "call_0", "title": "echo asked", "kind": "execute", "status": "pending",
               "rawInput": {"command": "echo asked", "description": "Say asked"},
               "locations": [{"path": _env.project}]})
    );
    let kinds: Vec<&str> = params["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
}

#[tokio::test]
async fn edit_prompts_carry_the_whole_file_diff() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"edit": "ask"}})).await;
    let path = env.project.join("a.txt");
    std::fs::write(&path, "one\ntwo\n").unwrap();
    agent.permission_choice = Some("reject_once".into());
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "a.txt", "oldString": "two", "newString": "2"}),
    )
    .await;
    let request = &agent.permission_requests()[0]["params"]["toolCall"];
    assert_eq!(
        request["content"],
        json!([{"type": "diff", "path": path, "oldText": "one\ntwo\n", "newText": "one\n2\n"}])
    );
    assert_eq!(request["locations"], json!([{"path": path, "line": 2}]));
    assert_eq!(request["title"], "Edit a.txt");
    // Rejected: the model is told, the call failed, and the file is untouched.
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("The user rejected permission"),
        "{result}"
    );
    assert_eq!(
        call_updates(&agent, "call_0").last().unwrap()["status"],
        "failed"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
}

#[tokio::test]
async fn a_rejection_rejects_the_rest_of_the_turns_asks() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    agent.permission_choice = Some("reject_once".into());
    let marker = env.root.path().join("ran");
    mock.push(openai_tool_calls(&[
        ("c1", "bash", &json!({"command": "echo one"}).to_string()),
        (
            "c2",
            "bash",
            &json!({"command": format!("touch {}", marker.display())}).to_string(),
        ),
    ]));
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "two commands").await;
    assert_eq!(agent.permission_requests().len(), 1, "asked once");
    let results: Vec<Value> = mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| {
        r["content"]
            .as_str()
            .unwrap()
            .starts_with("The user rejected permission")
    }));
    assert!(!marker.exists());
    // The next turn asks again.
    agent.permission_choice = Some("allow_once".into());
    call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo again"}),
    )
    .await;
    assert_eq!(agent.permission_requests().len(), 2);
}

#[tokio::test]
async fn always_allow_is_remembered_for_the_project_across_restarts() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    agent.permission_choice = Some("allow_always".into());
    call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "git log --oneline -1 || true"}),
    )
    .await;
    assert_eq!(agent.permission_requests().len(), 1);
    agent.shutdown().await;

    let mut again = env.spawn();
    again.initialize().await;
    let session = again.new_session(&env.project).await;
    // "git log *" and "true *" were remembered; "git log -5" needs no prompt, "ls" still asks.
    let (_, result) = call_tool(
        &mock,
        &mut again,
        &session,
        "bash",
        json!({"command": "git log -5 || true"}),
    )
    .await;
    assert!(
        !result["content"].as_str().unwrap().contains("rejected"),
        "{result}"
    );
    assert!(again.permission_requests().is_empty());
    call_tool(
        &mock,
        &mut again,
        &session,
        "bash",
        json!({"command": "ls"}),
    )
    .await;
    assert_eq!(again.permission_requests().len(), 1);
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let rows: Vec<(String, String, String)> = conn
        .prepare("SELECT permission, pattern, action FROM permission_approval ORDER BY pattern")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows,
        [
            ("bash".into(), "git log *".into(), "allow".into()),
            ("bash".into(), "true *".into(), "allow".into())
        ]
    );
}

#[tokio::test]
async fn paths_outside_the_project_ask_external_directory() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let outside = env.root.path().join("outside.txt");
    std::fs::write(&outside, "secret\n").unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": outside}),
    )
    .await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("The user rejected permission"),
        "{result}"
    );
    let request = &agent.permission_requests()[0]["params"]["toolCall"];
    assert_eq!(
        request["title"],
        format!("Access {} (outside the project)", env.root.path().display())
    );
    // Through a symlink inside the project, too.
    std::os::unix::fs::symlink(env.root.path(), env.project.join("link")).unwrap();
    agent.permission_choice = Some("allow_once".into());
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "link/outside.txt"}),
    )
    .await;
    assert!(
        result["content"].as_str().unwrap().contains("1: secret"),
        "{result}"
    );
    assert_eq!(agent.permission_requests().len(), 2);
}

#[tokio::test]
async fn a_pending_ask_never_blocks_another_session() {
    let (mock, env, mut agent, first) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    let second = agent.new_session(&env.project).await;
    agent.hold_permissions = true;
    mock.push(openai_tool_call(
        "held",
        "bash",
        &[&json!({"command": "echo held"}).to_string()],
    ));
    let first_id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": first, "prompt": [{"type": "text", "text": "ask"}]}),
        )
        .await;
    while agent.held.is_empty() {
        agent.next_message().await;
    }
    mock.push(openai_text(&["streaming ", "freely"], "stop"));
    let response = agent.prompt(&second, "meanwhile").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let second_text: String = agent
        .updates
        .iter()
        .filter(|u| {
            u["sessionId"] == second && u["update"]["sessionUpdate"] == "agent_message_chunk"
        })
        .map(|u| u["update"]["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(second_text, "streaming freely");
    mock.push(openai_text(&["done"], "stop"));
    let held = agent.held[0].clone();
    agent.answer_permission(&held, "allow_once").await;
    let response = agent.response(first_id).await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
}

#[tokio::test]
async fn the_same_call_three_times_asks_about_a_loop() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let args = json!({"pattern": "*.md"}).to_string();
    for id in ["l1", "l2", "l3"] {
        mock.push(openai_tool_call(id, "glob", &[&args]));
    }
    mock.push(openai_text(&["stopped"], "stop"));
    agent.prompt(&session, "loop").await;
    let requests = agent.permission_requests();
    assert_eq!(requests.len(), 1, "only the third call asks");
    assert_eq!(requests[0]["params"]["toolCall"]["toolCallId"], "l3");
    assert_eq!(
        requests[0]["params"]["toolCall"]["title"],
        "glob was called three times in a row with the same input"
    );
    assert_eq!(
        call_updates(&agent, "l3").last().unwrap()["status"],
        "failed"
    );
}

/// A turn whose command waits on its permission question (held, unanswered) when the person
/// cancels it. The command would create `marker`.
struct CancelledAsk {
    _mock: crate::support::MockLlm,
    _env: crate::support::TestEnv,
    agent: crate::support::AcpProcess,
    /// The prompt's request id.
    prompt: i64,
    marker: std::path::PathBuf,
}

async fn cancel_during_an_ask() -> CancelledAsk {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    agent.hold_permissions = true;
    let marker = env.root.path().join("ran");
    mock.push(openai_tool_call(
        "c1",
        "bash",
        &[&json!({"command": format!("touch {}", marker.display())}).to_string()],
    ));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    while agent.held.is_empty() {
        agent.next_message().await;
    }
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    CancelledAsk {
        _mock: mock,
        _env: env,
        agent,
        prompt,
        marker,
    }
}

#[tokio::test]
async fn cancel_resolves_a_pending_ask_as_rejected() {
    let CancelledAsk {
        mut agent,
        prompt: id,
        marker,
        ..
    } = cancel_during_an_ask().await;
    let request_id = agent.held[0]["id"].clone();
    let response = agent.response(id).await;
    assert_eq!(response["result"]["stopReason"], "cancelled");
    // The editor is told the question is void, the call failed, and nothing ran.
    assert!(
        agent
            .received
            .iter()
            .any(|m| m["method"] == "$/cancel_request" && m["params"]["requestId"] == request_id)
    );
    assert_eq!(
        call_updates(&agent, "c1").last().unwrap()["status"],
        "failed"
    );
    assert!(!marker.exists());
}

/// Where each line about `call_id` sits among everything received: its status changes and the
/// permission request, in order (a `tool_call` without a status is pending, ACP's default;
/// output deltas carry no status and are left out).
fn timeline(agent: &crate::support::AcpProcess, call_id: &str) -> Vec<String> {
    agent
        .received
        .iter()
        .filter_map(|m| match m["method"].as_str() {
            Some("session/update") if m["params"]["update"]["toolCallId"] == call_id => {
                let update = &m["params"]["update"];
                let kind = update["sessionUpdate"].as_str().unwrap();
                let status = match (kind, update["status"].as_str()) {
                    (_, Some(status)) => status,
                    ("tool_call", None) => "pending",
                    _ => return None,
                };
                Some(format!("{kind} {status}"))
            }
            Some("session/request_permission")
                if m["params"]["toolCall"]["toolCallId"] == call_id =>
            {
                Some("ask".into())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_call_waiting_for_permission_stays_pending_until_it_runs() {
    let (mock, _env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"bash": "ask"}})).await;
    agent.permission_choice = Some("allow_once".into());
    call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo asked"}),
    )
    .await;
    assert_eq!(
        timeline(&agent, "call_0"),
        [
            "tool_call pending",
            "tool_call_update pending",
            "ask",
            "tool_call_update in_progress",
            "tool_call_update completed"
        ]
    );
}

#[tokio::test]
async fn the_editor_shows_the_person_what_happened_while_the_model_gets_its_instructions() {
    let (mock, _env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"permission": {"bash": {"*": "ask", "rm *": "deny"}}}),
    )
    .await;
    agent.permission_choice = Some("reject_once".into());
    let (_, rejected) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo no"}),
    )
    .await;
    let (_, denied) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "rm -rf /tmp/nothing-here"}),
    )
    .await;
    let shown = |call: &str| {
        let last = call_updates(&agent, call).last().unwrap().clone();
        assert_eq!(last["status"], "failed");
        last["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(shown("call_0"), "Rejected: echo no");
    assert_eq!(
        shown("call_2"),
        "Denied by your permission rules: bash `rm -rf /tmp/nothing-here`"
    );
    assert!(
        rejected["content"]
            .as_str()
            .unwrap()
            .starts_with("The user rejected permission to use this specific tool call.")
    );
    assert!(
        denied["content"]
            .as_str()
            .unwrap()
            .starts_with("The user's permission rules deny bash `rm -rf /tmp/nothing-here`.")
    );
}

#[tokio::test]
async fn an_ask_the_editor_closes_after_cancel_is_not_cancelled_again() {
    let CancelledAsk {
        mut agent,
        prompt: id,
        marker,
        ..
    } = cancel_during_an_ask().await;
    // As ACP asks of editors: every open question of the session is answered `cancelled`.
    let held = agent.held[0].clone();
    agent
        .send(&json!({"jsonrpc": "2.0", "id": held["id"], "result": {"outcome": {"outcome": "cancelled"}}}))
        .await;
    let response = agent.response(id).await;
    assert_eq!(response["result"]["stopReason"], "cancelled");
    assert!(
        !agent
            .received
            .iter()
            .any(|m| m["method"] == "$/cancel_request"),
        "no cancel for a question the editor already closed"
    );
    let last = call_updates(&agent, "c1").last().unwrap().clone();
    assert_eq!(last["status"], "failed");
    assert_eq!(last["content"][0]["content"]["text"], "Cancelled");
    assert!(!marker.exists());
}

#[tokio::test]
async fn a_new_files_diff_says_it_had_no_old_text() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"edit": "ask"}})).await;
    agent.permission_choice = Some("allow_once".into());
    call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "fresh.txt", "content": "new\n"}),
    )
    .await;
    let path = env.project.join("fresh.txt");
    let expected = json!([{"type": "diff", "path": path, "oldText": null, "newText": "new\n"}]);
    let asked = &agent.permission_requests()[0]["params"]["toolCall"]["content"];
    assert_eq!(asked, &expected);
    assert!(asked[0].as_object().unwrap().contains_key("oldText"));
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(done["content"][0], expected[0]);
    assert!(
        done["content"][0]
            .as_object()
            .unwrap()
            .contains_key("oldText")
    );
}
