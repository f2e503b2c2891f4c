//! `tandem run` as people and scripts use it: a permission question answered by typing in a
//! real pseudo-terminal, `--deny`/`--approve`, the prompt from stdin, `--continue`, Ctrl-C
//! cancelling the turn with exit 130, and `--format json` valid against the ACP schema.

use std::io::Write as _;
use std::process::Stdio;
use std::time::Duration;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::pty::Pty;
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

/// A project whose model is the mock, with bash behind a question.
async fn project() -> (MockLlm, TestEnv) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"bash": "ask"});
    env.write_project_config(&config);
    (mock, env)
}

fn bash_call(mock: &MockLlm) {
    mock.push(openai_tool_call(
        "call_1",
        "bash",
        &[r#"{"command": "echo hello-from-bash", "description": "Say hello"}"#],
    ));
    mock.push(openai_text(&["Done."], "stop"));
}

/// Runs the blocking `f` off the test's runtime thread, which serves the mock.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

#[tokio::test]
async fn a_permission_question_is_answered_by_typing_y_at_the_terminal() {
    let (mock, env) = project().await;
    bash_call(&mock);
    let command = env.command(&["run", "say hello"]);
    let output = blocking(move || {
        let mut pty = Pty::spawn(command);
        pty.expect("? bash wants permission: ");
        pty.expect("Allow? [y]es / [a]lways / [n]o: ");
        pty.type_text("maybe\r");
        pty.expect("Please answer y, a or n.");
        pty.type_text("y\r");
        let status = pty.wait();
        (status, pty.output())
    })
    .await;
    let (status, shown) = output;
    assert!(status.success(), "{shown}");
    assert!(shown.contains("hello-from-bash"), "{shown}");
    assert!(shown.contains("✓ bash"), "{shown}");
    assert!(shown.contains("Done."), "{shown}");
    assert!(shown.contains("[stop: end_turn]"), "{shown}");
    let requests = mock.requests();
    let result = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()
        .to_string();
    assert!(result.contains("hello-from-bash"), "{result}");
}

#[tokio::test]
async fn deny_refuses_without_asking_and_approve_allows() {
    let (mock, env) = project().await;
    bash_call(&mock);
    let command = env.command(&["run", "--deny", "say hello"]);
    let output = blocking(move || {
        let mut command = command;
        command.stdin(Stdio::null()).output().unwrap()
    })
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("pass --approve to allow such requests"),
        "{stderr}"
    );
    assert!(!stdout.contains("  hello-from-bash"), "{stdout}");
    assert!(stdout.contains("✗ bash"), "{stdout}");

    bash_call(&mock);
    let command = env.command(&["run", "--approve", "say hello"]);
    let output = blocking(move || {
        let mut command = command;
        command.stdin(Stdio::null()).output().unwrap()
    })
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success());
    assert!(stdout.contains("  hello-from-bash"), "{stdout}");
}

#[tokio::test]
async fn the_prompt_can_come_from_stdin_and_continue_resumes_the_last_session() {
    let (mock, env) = project().await;
    mock.push(openai_text(&["First answer."], "stop"));
    mock.push(openai_text(&["Second answer."], "stop"));
    let first = env.command(&["run", "--format", "json"]);
    let second = env.command(&["run", "--continue", "and", "then?"]);
    let (first, second) = blocking(move || {
        let mut first = first;
        let mut child = first
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"a question from stdin\n")
            .unwrap();
        let first = child.wait_with_output().unwrap();
        let mut second = second;
        (first, second.stdin(Stdio::null()).output().unwrap())
    })
    .await;
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let requests = mock.requests();
    assert!(
        requests[0]
            .body
            .to_string()
            .contains("a question from stdin")
    );
    // The continued session sends the whole conversation.
    let history = requests[1].body["messages"].to_string();
    assert!(history.contains("a question from stdin"), "{history}");
    assert!(history.contains("First answer."), "{history}");
    assert!(history.contains("and then?"), "{history}");
    let first_session = String::from_utf8_lossy(&first.stderr)
        .split_whitespace()
        .skip_while(|w| *w != "session")
        .nth(1)
        .unwrap()
        .to_owned();
    assert!(
        String::from_utf8_lossy(&second.stderr).contains(&format!("session {first_session} ")),
        "the same session"
    );
}

#[tokio::test]
async fn ctrl_c_cancels_the_turn_and_exits_130() {
    let (mock, env) = project().await;
    let pieces: Vec<String> = (0..200).map(|i| format!("word{i} ")).collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    mock.push(openai_text(&pieces, "stop").paced(Duration::from_millis(50)));
    let command = env.command(&["run", "talk for a while"]);
    let (status, shown) = blocking(move || {
        let mut pty = Pty::spawn(command);
        pty.expect("word3 ");
        pty.type_text("\x03");
        let status = pty.wait();
        (status, pty.output())
    })
    .await;
    assert_eq!(status.code(), Some(130), "{shown}");
    assert!(shown.contains("cancelling the turn"), "{shown}");
    assert!(shown.contains("[stop: cancelled]"), "{shown}");
    assert!(!shown.contains("word199"), "{shown}");
    // What streamed before the interrupt is kept in the store.
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let text: String = conn
        .query_row(
            "SELECT data FROM part WHERE data LIKE '%word1 %' LIMIT 1",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert!(text.contains("word0"), "{text}");
}

#[tokio::test]
async fn json_output_is_valid_against_the_acp_schema() {
    use agent_client_protocol_schema::v1::{PromptResponse, SessionNotification};
    let (mock, env) = project().await;
    bash_call(&mock);
    let command = env.command(&["run", "--approve", "--format", "json", "say hello"]);
    let output = blocking(move || {
        let mut command = command;
        command.stdin(Stdio::null()).output().unwrap()
    })
    .await;
    assert!(output.status.success());
    let notification = serde_json::to_value(schemars::schema_for!(SessionNotification)).unwrap();
    let response = serde_json::to_value(schemars::schema_for!(PromptResponse)).unwrap();
    let notification = jsonschema::validator_for(&notification).unwrap();
    let response = jsonschema::validator_for(&response).unwrap();
    // The schema does reject what is not ACP.
    assert!(
        !notification.is_valid(&json!({"sessionId": "s", "update": {"sessionUpdate": "nope"}}))
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let (last, updates) = lines.split_last().unwrap();
    let mut kinds = Vec::new();
    for line in updates {
        assert_eq!(line["jsonrpc"], "2.0");
        assert_eq!(line["method"], "session/update", "{line}");
        let errors: Vec<String> = notification
            .iter_errors(&line["params"])
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{line} breaks the ACP schema: {errors:?}"
        );
        kinds.push(
            line["params"]["update"]["sessionUpdate"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert!(response.is_valid(&last["result"]), "{last}");
    for kind in ["tool_call", "tool_call_update", "agent_message_chunk"] {
        assert!(kinds.iter().any(|k| k == kind), "{kind} missing: {kinds:?}");
    }
}

#[tokio::test]
async fn a_spinner_counts_the_seconds_while_the_model_thinks_on_a_terminal_only() {
    let (mock, env) = project().await;
    mock.push(openai_text(&["Slow ", "answer."], "stop").paced(Duration::from_millis(400)));
    let command = env.command(&["run", "take your time"]);
    let shown = blocking(move || {
        let mut pty = Pty::spawn(command);
        pty.expect(" thinking 0.");
        pty.expect("Slow answer.");
        assert!(pty.wait().success());
        pty.output()
    })
    .await;
    // Each frame is drawn over the last, and erased before the answer is printed.
    let before = &shown[..shown.find("Slow ").unwrap()];
    assert!(before.contains("\r\x1b[2K"), "{shown:?}");
    assert!(
        before.trim_end().ends_with("\r\x1b[2K") || before.ends_with("\x1b[2K"),
        "{before:?}"
    );

    // Without a terminal: no spinner at all.
    mock.push(openai_text(&["Slow ", "answer."], "stop").paced(Duration::from_millis(300)));
    let command = env.command(&["run", "take your time"]);
    let output = blocking(move || {
        let mut command = command;
        command.stdin(Stdio::null()).output().unwrap()
    })
    .await;
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!all.contains("thinking"), "{all}");
}

/// A project whose model asks which database to use, then answers with what it was told.
async fn asking_project() -> (MockLlm, TestEnv) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    mock.push(openai_tool_call(
        "call_q",
        "question",
        &[
            &json!({"questions": [{"question": "Which database?", "header": "Database",
            "options": [{"label": "Postgres", "description": "A server"},
                        {"label": "SQLite", "description": "One file"}]}]})
            .to_string(),
        ],
    ));
    mock.push(openai_text(&["Using it."], "stop"));
    (mock, env)
}

/// What the model was told by the question tool.
fn question_result(mock: &MockLlm) -> String {
    mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_question_is_answered_by_number_at_the_terminal() {
    let (mock, env) = asking_project().await;
    let command = env.command(&["run", "store things"]);
    let (status, shown) = blocking(move || {
        let mut pty = Pty::spawn(command);
        pty.expect("? Database: Which database?");
        pty.expect("2. SQLite - One file");
        pty.expect("Number or your own answer: ");
        pty.type_text("7\r");
        pty.expect("Please pick from 1 to 2.");
        pty.type_text("2\r");
        let status = pty.wait();
        (status, pty.output())
    })
    .await;
    assert!(status.success(), "{shown}");
    assert!(
        question_result(&mock).contains("Answer: SQLite"),
        "{}",
        question_result(&mock)
    );
}

#[tokio::test]
async fn without_a_terminal_a_question_is_declined_unless_answer_gives_a_rule() {
    let (mock, env) = asking_project().await;
    let output = blocking({
        let mut command = env.command(&["run", "store things"]);
        move || command.stdin(Stdio::null()).output().unwrap()
    })
    .await;
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("tandem: declined the agent's question (Which database?)"),
        "{stderr}"
    );
    assert!(question_result(&mock).starts_with("The person declined to answer."));

    let (mock, env) = asking_project().await;
    let output = blocking({
        let mut command = env.command(&["run", "--answer", "first", "store things"]);
        move || command.stdin(Stdio::null()).output().unwrap()
    })
    .await;
    assert!(output.status.success());
    assert!(question_result(&mock).contains("Answer: Postgres"));
}
