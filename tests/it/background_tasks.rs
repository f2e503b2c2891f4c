//! Subagents in the background, through the binary: `task` with `run_in_background` answers at
//! once and the parent goes on; a child that ends during the parent's third step reaches the
//! model at the next step with its final message; `task_output` reads a running child;
//! `/jobs` lists and stops one, the next prompt carrying its end; `session/close` stops them.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::mock_llm::{TASK_ID_SLOT, openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm};

fn background_task(description: &str, prompt: &str) -> String {
    json!({"description": description, "prompt": prompt, "subagent_type": "general",
           "run_in_background": true})
    .to_string()
}

fn bash(command: &str) -> String {
    json!({"command": command, "description": "run it"}).to_string()
}

/// The tool results in the parent's request `index`.
fn tool_results(mock: &MockLlm, index: usize) -> Vec<String> {
    messages(mock, index)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

fn messages(mock: &MockLlm, index: usize) -> Vec<Value> {
    mock.requests()[index].body["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// The parent's requests (the children's are told apart by their first user message).
fn parent_requests(mock: &MockLlm, first_words: &str) -> Vec<usize> {
    (0..mock.requests().len())
        .filter(|i| {
            messages(mock, *i)
                .iter()
                .find(|m| m["role"] == "user")
                .is_some_and(|m| m["content"].to_string().contains(first_words))
        })
        .collect()
}

fn alive(marker: &str) -> bool {
    std::process::Command::new("pgrep")
        .args(["-f", marker])
        .output()
        .is_ok_and(|o| o.status.success())
}

async fn gone(marker: &str) -> bool {
    for _ in 0..100 {
        if !alive(marker) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

async fn start() -> (MockLlm, crate::support::TestEnv, AcpProcess, String) {
    crate::support::start_with("openai", json!({"permission": {"bash": "allow"}})).await
}

async fn the_child(agent: &mut AcpProcess, session: &str) -> String {
    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    children["result"]["sessions"][0]["sessionId"]
        .as_str()
        .expect("a child")
        .to_owned()
}

#[tokio::test]
async fn a_background_child_ends_during_the_parents_third_step_and_is_told_at_the_next() {
    let (mock, env, mut agent, session) = start().await;
    let go = env.project.join("go");
    let go = go.display();
    let last = env.project.join("child-on-its-last-step");
    let last = last.display();
    // The parent: starts the child, looks around, lets the child finish, then answers.
    mock.push(openai_tool_call(
        "t1",
        "task",
        &[&background_task("Survey", "Survey the docs")],
    ));
    mock.push(openai_tool_call(
        "o1",
        "task_output",
        &[&json!({"id": TASK_ID_SLOT}).to_string()],
    ));
    mock.push(openai_tool_call(
        "b1",
        "bash",
        &[&bash(&format!(
            "touch {go}; while [ ! -e {last} ]; do sleep 0.05; done; sleep 1"
        ))],
    ));
    mock.push(openai_text(&["Carrying on."], "stop"));
    // The child: waits for the parent's third step, then answers.
    mock.push_for(
        "Survey the docs",
        openai_tool_call(
            "c1",
            "bash",
            &[&bash(&format!(
                "while [ ! -e {go} ]; do sleep 0.05; done; echo surveyed; touch {last}"
            ))],
        ),
    );
    mock.push_for(
        "Survey the docs",
        openai_text(&["The docs are fine."], "stop"),
    );
    let response = agent.prompt(&session, "look after the docs").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let child = the_child(&mut agent, &session).await;
    let parent = parent_requests(&mock, "look after the docs");
    assert_eq!(parent.len(), 4, "{parent:?}");
    assert_eq!(
        tool_results(&mock, parent[1]),
        [format!(
            "task_id: {child}\n\nThe subagent is working on it in the background. You will be \
             told when it ends, with its final message; go on with other work meanwhile. \
             task_output reads its progress, task_cancel stops it."
        )]
    );
    // Its progress, read while it waited in its first call.
    let progress = &tool_results(&mock, parent[2])[1];
    assert!(
        progress.starts_with(&format!(
            "The subagent {child} (@general \u{201c}Survey\u{201d}) is still running ("
        )),
        "{progress}"
    );
    // Told between the third step and the fourth, with its final message.
    let told = messages(&mock, parent[3]);
    let reminder = told
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .find(|text| text.contains("Background task"))
        .unwrap_or_else(|| panic!("not told: {told:#?}"));
    assert!(
        reminder.contains(&format!(
            "Background task {child} (@general \u{201c}Survey\u{201d}) finished. Its final \
             message:\\n<task_result>\\nThe docs are fine.\\n</task_result>"
        )),
        "{reminder}"
    );
    let jobs = agent.prompt(&session, "/jobs").await;
    assert_eq!(jobs["result"]["stopReason"], "end_turn");
    assert!(
        agent.agent_text().ends_with(&format!(
            "Subagents in the background:\n{child}  finished  @general \u{201c}Survey\u{201d}\n\
             /jobs kill ID stops one."
        )),
        "{}",
        agent.agent_text()
    );
}

#[tokio::test]
async fn a_background_child_stopped_with_jobs_kill_is_told_with_the_next_prompt() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(openai_tool_call(
        "t1",
        "task",
        &[&background_task("Wait", "Wait for ever")],
    ));
    mock.push(openai_text(&["Started it."], "stop"));
    mock.push_for(
        "Wait for ever",
        openai_tool_call("c1", "bash", &[&bash("sleep 3171")]),
    );
    let response = agent.prompt(&session, "start waiting").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let child = the_child(&mut agent, &session).await;
    assert!(
        agent.agent_text().ends_with(&format!(
            "Still working in the background: @general \u{201c}Wait\u{201d} ({child}). You will \
             be told when each ends; /jobs lists them.\n"
        )),
        "{}",
        agent.agent_text()
    );
    for _ in 0..100 {
        if alive("sleep 3171") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(alive("sleep 3171"), "the child runs on after the turn");
    agent.prompt(&session, &format!("/jobs kill {child}")).await;
    assert!(
        agent.agent_text().ends_with(&format!(
            "Stopped the subagent {child} (@general \u{201c}Wait\u{201d})."
        )),
        "{}",
        agent.agent_text()
    );
    assert!(gone("sleep 3171").await, "its command ended with it");
    mock.push(openai_text(&["Noted."], "stop"));
    agent.prompt(&session, "what happened").await;
    let last = mock.requests().len() - 1;
    let sent = mock.requests()[last].body["messages"].to_string();
    assert!(
        sent.contains(&format!(
            "Background task {child} (@general \u{201c}Wait\u{201d}) was cancelled before it \
             finished."
        )),
        "{sent}"
    );
}

#[tokio::test]
async fn closing_the_session_stops_its_background_children_first() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(openai_tool_call(
        "t1",
        "task",
        &[&background_task("Wait", "Wait again")],
    ));
    mock.push(openai_text(&["Started it."], "stop"));
    mock.push_for(
        "Wait again",
        openai_tool_call("c1", "bash", &[&bash("sleep 3172")]),
    );
    agent.prompt(&session, "start waiting").await;
    for _ in 0..100 {
        if alive("sleep 3172") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(alive("sleep 3172"));
    let closed = agent
        .request("session/close", json!({"sessionId": session}))
        .await;
    assert_eq!(closed["result"], json!({}), "{closed}");
    assert!(!alive("sleep 3172"), "stopped before the answer");
}

#[tokio::test]
async fn the_model_stops_its_background_child_with_task_cancel() {
    let (mock, _env, mut agent, session) = start().await;
    mock.push(openai_tool_call(
        "t1",
        "task",
        &[&background_task("Wait", "Wait until stopped")],
    ));
    mock.push(openai_tool_call(
        "k1",
        "task_cancel",
        &[&json!({"id": TASK_ID_SLOT}).to_string()],
    ));
    mock.push(openai_text(&["Stopped it."], "stop"));
    mock.push_for(
        "Wait until stopped",
        openai_tool_call("c1", "bash", &[&bash("sleep 3173")]),
    );
    let response = agent.prompt(&session, "start and stop").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let child = the_child(&mut agent, &session).await;
    let parent = parent_requests(&mock, "start and stop");
    assert_eq!(
        tool_results(&mock, *parent.last().unwrap())[1],
        format!(
            "Stopped the subagent {child} (@general \u{201c}Wait\u{201d}). What it changed so far \
             stays."
        )
    );
    assert!(gone("sleep 3173").await, "its command ended with it");
}

#[tokio::test]
async fn an_editor_that_follows_subagents_sees_a_background_child_run_until_it_ends() {
    let mock = MockLlm::start().await;
    let env = crate::support::TestEnv::new();
    let mut config = crate::support::TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"bash": "allow"});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize_with(json!({"subagents": {}})).await;
    let session = agent.new_session(&env.project).await;
    let go = env.project.join("go");
    mock.push(openai_tool_call(
        "t1",
        "task",
        &[&background_task("Later", "Finish later")],
    ));
    mock.push(openai_text(&["Started."], "stop"));
    mock.push_for(
        "Finish later",
        openai_tool_call(
            "c1",
            "bash",
            &[&bash(&format!(
                "while [ ! -e {} ]; do sleep 0.05; done",
                go.display()
            ))],
        ),
    );
    mock.push_for("Finish later", openai_text(&["Finished."], "stop"));
    agent.prompt(&session, "start it").await;
    let states = |agent: &AcpProcess| -> Vec<String> {
        agent
            .updates
            .iter()
            .filter(|u| u["update"]["sessionUpdate"] == "subagent_update")
            .map(|u| {
                u["update"]["state"]["state"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(states(&agent), ["running"], "still running after the turn");
    std::fs::write(&go, "").unwrap();
    agent
        .wait_for_update(|u| {
            u["update"]["sessionUpdate"] == "subagent_update"
                && u["update"]["state"]["state"] == "idle"
        })
        .await;
    assert_eq!(states(&agent), ["running", "idle"]);
    // The person hears of it at once: the parent was idle.
    agent
        .wait_for_update(|u| {
            u["update"]["content"]["text"].as_str().is_some_and(|t| {
                t.contains("The background subagent @general \u{201c}Later\u{201d} finished")
            })
        })
        .await;
}
