//! The person's ceilings and the fallback chain, through the binary: a session's money ceiling
//! reached mid-turn, the day's across sessions, a delegation tree's, a turn's wall time, and
//! a 529 answered by the next model of `fallback`; `tandem run --max-cost` and `--fallback`.

use serde_json::{Value, json};

use crate::support::mock_llm::{MockResponse, openai_text, openai_tool_call, with_usage};
use crate::support::{AcpProcess, MockLlm, TestEnv};

/// A config whose mock models cost $1 per thousand input tokens, with `extra` on top.
fn config(mock: &MockLlm, extra: Value) -> Value {
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    let cost = json!({"input": 1000.0, "output": 0.0});
    config["provider"]["mock"]["models"]["test-model"]["cost"] = cost.clone();
    config["provider"]["mock"]["models"]["backup-model"] = json!({"name": "Backup",
        "limit": {"context": 100000, "output": 4096}, "cost": cost});
    config["permission"] = json!({"bash": "allow"});
    for (key, value) in extra.as_object().unwrap() {
        config[key] = value.clone();
    }
    config
}

async fn start(extra: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&config(&mock, extra));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// A step that costs $1.00 (a thousand input tokens) and runs `command`.
fn dollar_step(id: &str, command: &str) -> MockResponse {
    let args = json!({"command": command, "description": "run"}).to_string();
    with_usage(openai_tool_call(id, "bash", &[&args]), 1000, 0)
}

#[tokio::test]
async fn a_sessions_money_ceiling_ends_the_turn_before_the_next_model_call() {
    let (mock, env, mut agent, session) = start(json!({"limits": {"session_cost": 1.5}})).await;
    mock.push(dollar_step("b1", "echo one > one.txt"));
    mock.push(dollar_step("b2", "echo two > two.txt"));
    mock.push(openai_text(&["never asked"], "stop"));
    let response = agent.prompt(&session, "work").await;
    assert_eq!(response["result"]["stopReason"], "max_tokens", "{response}");
    assert_eq!(mock.requests().len(), 2, "no third model call");
    assert!(
        env.project.join("two.txt").exists(),
        "the second step's call ran"
    );
    assert!(
        agent.agent_text().contains(
            "\nThis session has spent $2.00, reaching the ceiling of $1.50 \
             (`limits.session_cost`). The turn stops here; nothing is lost. Raise the ceiling \
             to go on.\n"
        ),
        "{}",
        agent.agent_text()
    );
    // Each call's own cost is on record for the day's and the tree's sums.
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    let (rows, total): (i64, f64) = db
        .query_row("SELECT COUNT(*), SUM(cost) FROM spend", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((rows, (total * 100.0).round()), (2, 200.0));
}

#[tokio::test]
async fn the_days_ceiling_counts_every_session() {
    let (mock, env, mut agent, session) = start(json!({"limits": {"day_cost": 0.5}})).await;
    mock.push(with_usage(openai_text(&["done"], "stop"), 1000, 0));
    agent.prompt(&session, "first").await;
    let other = agent.new_session(&env.project).await;
    let response = agent.prompt(&other, "second").await;
    assert_eq!(response["result"]["stopReason"], "max_tokens", "{response}");
    assert_eq!(mock.requests().len(), 1);
    assert!(
        agent.agent_text().contains(
            "Today every session together has spent $1.00, reaching the ceiling of $0.50 \
             (`limits.day_cost`)."
        ),
        "{}",
        agent.agent_text()
    );
}

#[tokio::test]
async fn a_delegation_trees_ceiling_holds_the_child_and_its_caller() {
    let (mock, _env, mut agent, session) = start(json!({"limits": {"tree_cost": 1.5}})).await;
    let task = json!({"description": "Spend", "prompt": "Spend in the child",
                      "subagent_type": "general"});
    // A tenth of a cent: the parent's own call hardly counts.
    let free = |response| with_usage(response, 1, 0);
    mock.push(free(openai_tool_call("t1", "task", &[&task.to_string()])));
    mock.push_for("Spend in the child", dollar_step("c1", "true"));
    mock.push_for("Spend in the child", dollar_step("c2", "true"));
    mock.push_for("Spend in the child", openai_text(&["never asked"], "stop"));
    let response = agent.prompt(&session, "delegate").await;
    assert_eq!(response["result"]["stopReason"], "max_tokens", "{response}");
    // The parent's first call, the child's two; neither asked again.
    assert_eq!(mock.requests().len(), 3);
    assert!(
        agent
            .agent_text()
            .contains("This session and its subagents have spent $2.00, reaching the ceiling"),
        "{}",
        agent.agent_text()
    );
}

#[tokio::test]
async fn a_turns_wall_time_ceiling_stops_it_mid_call() {
    let (mock, _env, mut agent, session) = start(json!({"limits": {"turn_seconds": 1}})).await;
    mock.push(openai_tool_call(
        "b1",
        "bash",
        &[&json!({"command": "sleep 3181", "description": "wait"}).to_string()],
    ));
    let response = agent.prompt(&session, "wait").await;
    assert_eq!(
        response["result"]["stopReason"], "max_turn_requests",
        "{response}"
    );
    assert!(
        agent.agent_text().ends_with(
            "\nThis turn ran for its limit of 1 s (`limits.turn_seconds`) and was stopped \
             there; nothing is lost. Send a message to go on.\n"
        ),
        "{}",
        agent.agent_text()
    );
}

fn overloaded() -> MockResponse {
    MockResponse::status(
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    )
}

#[tokio::test]
async fn a_529_after_the_retries_is_answered_by_the_next_model_of_the_chain() {
    let (mock, env, mut agent, session) =
        start(json!({"fallback": ["other/missing-model", "mock/backup-model"]})).await;
    for _ in 0..3 {
        mock.push(overloaded());
    }
    mock.push(openai_text(&["Answered by the backup."], "stop"));
    let response = agent.prompt(&session, "hello").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let models: Vec<String> = mock
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        models,
        ["test-model", "test-model", "test-model", "backup-model"]
    );
    let text = agent.agent_text();
    assert!(
        text.contains(
            "mock/test-model failed after its retries (mock answered HTTP 529: Overloaded \
             (gave up after 3 attempts)); going on with mock/backup-model (`fallback`)."
        ),
        "{text}"
    );
    assert!(text.ends_with("Answered by the backup."), "{text}");
    // The record: the failed answer, then the backup's, each under its model.
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    let answers: Vec<(Value, Value)> = db
        .prepare("SELECT data FROM message WHERE role = 'assistant' ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|data| {
            let info: Value = serde_json::from_str(&data.unwrap()).unwrap();
            (info["model"].clone(), info["error"].clone())
        })
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0].0, "mock/test-model");
    assert!(
        answers[0].1.as_str().unwrap().contains("529"),
        "{answers:?}"
    );
    assert_eq!(answers[1], (json!("mock/backup-model"), Value::Null));
}

#[tokio::test]
async fn tandem_run_takes_max_cost_and_fallback() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&config(&mock, json!({})));
    for _ in 0..3 {
        mock.push(overloaded());
    }
    mock.push(dollar_step("b1", "echo ran > ran.txt"));
    mock.push(openai_text(&["never asked"], "stop"));
    let mut command = env.command(&[
        "run",
        "--max-cost",
        "0.5",
        "--fallback",
        "mock/backup-model",
        "--approve",
        "work",
    ]);
    command.stdin(std::process::Stdio::null());
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("going on with mock/backup-model (`fallback`)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reaching the ceiling of $0.50 (`limits.session_cost`)"),
        "{stdout}"
    );
    assert!(stdout.ends_with("[stop: max_tokens]\n"), "{stdout}");
    assert!(env.project.join("ran.txt").exists());
    assert_eq!(mock.requests().len(), 4);
}
