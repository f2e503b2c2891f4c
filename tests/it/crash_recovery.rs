//! When Tandem is killed mid-turn: the text the editor was shown is in the store (within the
//! 50 ms coalescing window), an unfinished tool call replays as failed ("interrupted") and the
//! session as idle, and the command it was running dies with it (SIGKILL, SIGTERM).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::crash::{load_in_new_process, running, wait_gone};
use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

async fn start() -> (MockLlm, TestEnv, AcpProcess, String) {
    crate::support::start("openai").await
}

fn signal(agent: &AcpProcess, signal: i32) {
    let pid = agent.child.id().unwrap() as i32;
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(pid, signal) };
}

async fn wait_for_file(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Loads `session` in a new process and returns it with its replayed updates.
async fn replay(env: &TestEnv, session: &str) -> (AcpProcess, Vec<Value>) {
    let agent = load_in_new_process(env, session).await;
    let updates = agent.updates.iter().map(|u| u["update"].clone()).collect();
    (agent, updates)
}

#[tokio::test]
async fn text_shown_before_a_sigkill_is_replayed() {
    let (mock, env, mut agent, session) = start().await;
    let words: Vec<String> = (0..300).map(|i| format!("w{i} ")).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    mock.push(openai_text(&words, "stop").paced(Duration::from_millis(10)));
    let _turn = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "talk"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| {
            u["update"]["sessionUpdate"] == "agent_message_chunk"
                && u["update"]["content"]["text"] == "w40 "
        })
        .await;
    let shown = agent.agent_text();
    // Longer than the coalescing window (50 ms), then the process dies without warning.
    tokio::time::sleep(Duration::from_millis(150)).await;
    signal(&agent, libc::SIGKILL);
    let _ = agent.child.wait().await;

    let (_agent, updates) = replay(&env, &session).await;
    let replayed: String = updates
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str())
        .collect();
    assert!(
        replayed.starts_with(&shown),
        "shown before the kill:\n{shown}\nreplayed:\n{replayed}"
    );
}

/// A bash call that writes its pid then becomes `sleep 300`, running when the test strikes.
async fn running_command(
    mock: &MockLlm,
    env: &TestEnv,
    agent: &mut AcpProcess,
    session: &str,
) -> i32 {
    command_running(
        mock,
        env,
        agent,
        session,
        "echo $$ > sleeper.pid; exec sleep 300",
    )
    .await
}

/// A bash call of `command`, which must write its pid to `sleeper.pid` and then keep running.
async fn command_running(
    mock: &MockLlm,
    env: &TestEnv,
    agent: &mut AcpProcess,
    session: &str,
    command: &str,
) -> i32 {
    let input = json!({"command": command, "description": "Sleep"}).to_string();
    mock.push(openai_tool_call("call_sleep", "bash", &[&input]));
    mock.push(openai_text(&["never reached"], "stop"));
    let _turn = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "sleep"}]}),
        )
        .await;
    let pid: i32 = wait_for_file(&env.project.join("sleeper.pid"))
        .await
        .trim()
        .parse()
        .unwrap();
    assert!(running(pid));
    pid
}

fn call_replay(updates: &[Value]) -> Vec<&Value> {
    updates
        .iter()
        .filter(|u| u["toolCallId"] == "call_sleep")
        .collect()
}

#[tokio::test]
async fn sigkill_mid_command_kills_the_command_and_the_call_replays_as_interrupted() {
    let (mock, env, mut agent, session) = start().await;
    let pid = running_command(&mock, &env, &mut agent, &session).await;
    signal(&agent, libc::SIGKILL);
    let _ = agent.child.wait().await;
    assert!(
        wait_gone(pid, Duration::from_secs(2)).await,
        "the command outlived a SIGKILLed Tandem"
    );

    let (mut agent, updates) = replay(&env, &session).await;
    let call = call_replay(&updates);
    let last = call.last().expect("the call is replayed");
    assert_eq!(last["status"], "failed", "{call:?}");
    assert!(
        last.to_string()
            .contains("Interrupted: Tandem stopped before this call finished"),
        "{last}"
    );
    assert!(
        !updates.iter().any(|u| u["status"] == "in_progress"),
        "{updates:?}"
    );
    let status = agent
        .request("_tandem/session/status", json!({"sessionId": session}))
        .await;
    assert_eq!(status["result"], json!({"type": "idle"}));
    // The row itself is repaired, not just the replay.
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let stuck: i64 = conn
        .query_row(
            "SELECT count(*) FROM part WHERE data LIKE '%\"status\":\"running\"%' OR data LIKE '%\"status\":\"pending\"%'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(stuck, 0);
}

#[tokio::test]
async fn background_grandchildren_die_with_a_sigkilled_tandem_too() {
    let (mock, env, mut agent, session) = start().await;
    // A grandchild in a subshell that has already exited, and one bash waits for.
    let command = "(sleep 301 & echo $! > orphan.pid); sleep 302 & echo $! > waited.pid; \
                   echo $$ > sleeper.pid; wait";
    let shell = command_running(&mock, &env, &mut agent, &session, command).await;
    let orphan: i32 = wait_for_file(&env.project.join("orphan.pid"))
        .await
        .trim()
        .parse()
        .unwrap();
    let waited: i32 = wait_for_file(&env.project.join("waited.pid"))
        .await
        .trim()
        .parse()
        .unwrap();
    assert!(running(orphan) && running(waited));
    signal(&agent, libc::SIGKILL);
    let _ = agent.child.wait().await;
    for (what, pid) in [("shell", shell), ("orphan", orphan), ("waited", waited)] {
        assert!(
            wait_gone(pid, Duration::from_secs(5)).await,
            "the {what} ({pid}) outlived a SIGKILLed Tandem"
        );
    }
}

#[tokio::test]
async fn sigterm_and_sighup_end_tandem_and_its_commands_within_a_second() {
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
    ] {
        let (mock, env, mut agent, session) = start().await;
        let pid = running_command(&mock, &env, &mut agent, &session).await;
        let asked = Instant::now();
        signal(&agent, sig);
        let status = tokio::time::timeout(Duration::from_secs(1), agent.child.wait())
            .await
            .unwrap_or_else(|_| panic!("signal {sig}: Tandem still runs after 1 s"))
            .unwrap();
        assert_eq!(status.code(), Some(code), "signal {sig}");
        assert!(
            wait_gone(pid, Duration::from_secs(1).saturating_sub(asked.elapsed())).await,
            "signal {sig}: the command outlived Tandem"
        );
    }
}
