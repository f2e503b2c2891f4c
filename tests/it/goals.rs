//! Goals judged on evidence, through the binary: `/goal` reached in two turns with a check
//! script's exit code as the evidence the judge reads; one that runs out of its turns; one
//! paused, kept across a restart of Tandem and resumed; a goal the model proposes with the
//! `goal` tool and the person approves. The judge's requests are told apart by their words.

use serde_json::{Value, json};

use crate::support::mock_llm::{MockResponse, openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};

/// The judge's requests start with this.
const JUDGED: &str = "Goal condition:";

fn verdict(met: bool, reason: &str) -> MockResponse {
    openai_text(
        &[&json!({"met": met, "reason": reason}).to_string()],
        "stop",
    )
}

fn bash(id: &str, command: &str) -> MockResponse {
    let args = json!({"command": command, "description": "check"}).to_string();
    openai_tool_call(id, "bash", &[&args])
}

async fn start(extra: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mut extra = extra;
    extra["permission"] = json!({"bash": "allow"});
    crate::support::start_with("openai", extra).await
}

/// The judge's requests, in order, as the text it was given.
fn judged(mock: &MockLlm) -> Vec<String> {
    mock.requests()
        .iter()
        .map(|r| r.body["messages"].to_string())
        .filter(|text| text.contains(JUDGED))
        .collect()
}

/// The goal snapshots the editor was sent.
fn goals(agent: &AcpProcess) -> Vec<Value> {
    agent
        .updates_of("session_info_update")
        .iter()
        .filter_map(|u| u.get("_meta").and_then(|m| m.get("goal")).cloned())
        .collect()
}

fn stored_goal(env: &TestEnv, session: &str) -> Value {
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    let data: String = db
        .query_row(
            "SELECT data FROM session_goal WHERE session_id = ?1",
            [session],
            |r| r.get(0),
        )
        .unwrap();
    serde_json::from_str(&data).unwrap()
}

#[tokio::test]
async fn a_goal_is_reached_in_two_turns_on_a_check_scripts_exit_code() {
    let (mock, env, mut agent, session) = start(json!({})).await;
    std::fs::write(env.project.join("check.sh"), "test -e fixed\n").unwrap();
    mock.push(bash("b1", "sh check.sh"));
    mock.push(openai_text(&["It should pass now."], "stop"));
    mock.push_for(JUDGED, verdict(false, "sh check.sh exited with code 1"));
    mock.push(bash("b2", "touch fixed && sh check.sh"));
    mock.push(openai_text(&["Fixed."], "stop"));
    mock.push_for(JUDGED, verdict(true, "sh check.sh exited with code 0"));
    let response = agent
        .prompt(&session, "/goal the check script passes")
        .await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let judged = judged(&mock);
    assert_eq!(judged.len(), 2, "{judged:#?}");
    assert!(judged[0].contains("Goal condition: the check script passes"));
    assert!(
        judged[0].contains("$ sh check.sh\\n(exit code 1)"),
        "{}",
        judged[0]
    );
    // The first turn's claim is there, marked as a claim.
    assert!(
        judged[0]
            .contains("## The agent's last words (its claim, not evidence)\\nIt should pass now."),
        "{}",
        judged[0]
    );
    assert!(
        judged[1].contains("$ touch fixed && sh check.sh\\n(exit code 0)"),
        "{}",
        judged[1]
    );
    let text = agent.agent_text();
    assert!(
        text.contains("\nGoal not met yet: sh check.sh exited with code 1\nWorking on.\n"),
        "{text}"
    );
    assert!(
        text.ends_with("\nGoal met: sh check.sh exited with code 0\n"),
        "{text}"
    );
    // The second turn began with the goal's reminder, not a prompt of the person's.
    let second_turn = mock.requests()[3].body["messages"].to_string();
    assert!(
        second_turn.contains(
            "Keep working toward the goal: the check script passes\\nThe last check found it \
             not met yet: sh check.sh exited with code 1"
        ),
        "{second_turn}"
    );
    let shown = goals(&agent);
    let last = shown.last().unwrap();
    assert_eq!(last["status"], "complete", "{shown:#?}");
    assert_eq!(last["iterations"], 2);
    assert_eq!(last["objective"], "the check script passes");
    assert_eq!(last["lastReason"], "sh check.sh exited with code 0");
    assert_eq!(stored_goal(&env, &session)["status"], "complete");
}

#[tokio::test]
async fn a_goal_stops_when_its_turns_run_out() {
    let (mock, _env, mut agent, session) = start(json!({"goal": {"max_turns": 2}})).await;
    for n in 0..2 {
        mock.push(bash(&format!("b{n}"), "false"));
        mock.push(openai_text(&["Not yet."], "stop"));
        mock.push_for(JUDGED, verdict(false, "the command failed"));
    }
    let response = agent.prompt(&session, "/goal false succeeds").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(judged(&mock).len(), 2);
    assert!(
        agent.agent_text().ends_with(
            "\nGoal not met: the command failed\nIt stops here: it used its budget of 2 turns. \
             /goal resume gives it another.\n"
        ),
        "{}",
        agent.agent_text()
    );
    assert_eq!(goals(&agent).last().unwrap()["status"], "limited");
}

#[tokio::test]
async fn a_paused_goal_survives_a_restart_and_resumes() {
    let (mock, env, mut agent, session) = start(json!({"goal": {"max_turns": 1}})).await;
    mock.push(openai_text(&["Started."], "stop"));
    mock.push_for(JUDGED, verdict(false, "nothing ran yet"));
    agent.prompt(&session, "/goal the docs build").await;
    agent.prompt(&session, "/goal pause").await;
    assert!(
        agent.agent_text().ends_with(
            "Goal paused: no new turn starts for it (the running one finishes). /goal resume \
             goes on."
        ),
        "{}",
        agent.agent_text()
    );
    assert_eq!(stored_goal(&env, &session)["status"], "paused");
    drop(agent);

    let mut agent = env.spawn();
    agent.initialize().await;
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("result").is_some(), "{loaded}");
    // Said after the answer, with the session's commands.
    agent
        .wait_for_update(|u| u["update"]["_meta"]["goal"].is_object())
        .await;
    let shown = goals(&agent);
    assert_eq!(shown.len(), 1, "{shown:#?}");
    assert_eq!(shown[0]["status"], "paused");
    assert_eq!(shown[0]["objective"], "the docs build");
    assert_eq!(shown[0]["iterations"], 1);

    mock.push(bash("b1", "true"));
    mock.push(openai_text(&["Built."], "stop"));
    mock.push_for(JUDGED, verdict(true, "the build exited with code 0"));
    let response = agent.prompt(&session, "/goal resume").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert!(
        agent
            .agent_text()
            .ends_with("\nGoal met: the build exited with code 0\n"),
        "{}",
        agent.agent_text()
    );
    assert_eq!(goals(&agent).last().unwrap()["status"], "complete");
}

#[tokio::test]
async fn a_goal_the_model_proposes_starts_once_the_person_approves_it() {
    let (mock, _env, mut agent, session) = start(json!({})).await;
    agent.permission_choice = Some("allow_once".into());
    let proposal = json!({"objective": "the linter is clean"}).to_string();
    mock.push(openai_tool_call("g1", "goal", &[&proposal]));
    mock.push(openai_text(&["I set a goal."], "stop"));
    mock.push_for(JUDGED, verdict(true, "the linter exited with code 0"));
    agent.prompt(&session, "make the linter happy").await;
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0]["params"]["toolCall"]["title"],
        "Keep working until: the linter is clean"
    );
    assert_eq!(judged(&mock).len(), 1);
    assert_eq!(goals(&agent).last().unwrap()["status"], "complete");
}
