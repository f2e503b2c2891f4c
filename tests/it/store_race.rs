//! Several processes on one store (two editor windows): opening a new, empty store at the same
//! moment never fails either one, and a store a newer Tandem upgraded is refused clearly, with
//! the next call tried again rather than the failure kept.

use crate::support::TestEnv;
use serde_json::json;

#[tokio::test]
async fn two_processes_creating_a_store_at_once_both_work() {
    for round in 0..20 {
        let env = TestEnv::new();
        let mut first = env.spawn();
        let mut second = env.spawn();
        first.initialize().await;
        second.initialize().await;
        let a = first
            .start_request("session/new", json!({"cwd": env.project, "mcpServers": []}))
            .await;
        let b = second
            .start_request("session/new", json!({"cwd": env.project, "mcpServers": []}))
            .await;
        let (a, b) = (first.response(a).await, second.response(b).await);
        assert!(a["result"]["sessionId"].is_string(), "round {round}: {a}");
        assert!(b["result"]["sessionId"].is_string(), "round {round}: {b}");
        // And both keep working.
        let again = second.request("session/list", json!({})).await;
        assert_eq!(
            again["result"]["sessions"].as_array().map(Vec::len),
            Some(2),
            "{again}"
        );
    }
}

#[tokio::test]
async fn a_store_from_a_newer_tandem_is_refused_and_retried_on_the_next_call() {
    let env = TestEnv::new();
    // A store whose schema a newer Tandem moved to version 999.
    std::fs::create_dir_all(&env.data).unwrap();
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let mut agent = env.spawn();
    agent.initialize().await;
    let refused = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("newer"), "{refused}");
    // The person moves the store aside; the same process now works without a restart.
    std::fs::rename(env.db_path(), env.data.join("tandem.db.new")).unwrap();
    let _ = std::fs::remove_file(env.data.join("tandem.db-wal"));
    let _ = std::fs::remove_file(env.data.join("tandem.db-shm"));
    let opened = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    assert!(opened["result"]["sessionId"].is_string(), "{opened}");
}

#[tokio::test]
async fn a_store_upgraded_while_tandem_runs_is_no_longer_written_and_the_prompt_says_why() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(crate::support::mock_llm::openai_text(&["first"], "stop"));
    let first = agent.prompt(&session, "one").await;
    assert_eq!(first["result"]["stopReason"], "end_turn", "{first}");
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let parts_before: i64 = conn
        .query_row("SELECT count(*) FROM part", [], |row| row.get(0))
        .unwrap();
    // A newer Tandem, in another window, migrates the store.
    conn.pragma_update(None, "user_version", 999).unwrap();
    mock.push(crate::support::mock_llm::openai_text(&["second"], "stop"));
    let second = agent.prompt(&session, "two").await;
    let message = second["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("a newer Tandem upgraded the session database"),
        "{second}"
    );
    let parts_after: i64 = conn
        .query_row("SELECT count(*) FROM part", [], |row| row.get(0))
        .unwrap();
    assert_eq!(
        parts_after, parts_before,
        "nothing was written after the upgrade"
    );
    // Still serving.
    let listed = agent.request("session/list", json!({})).await;
    assert!(listed.get("result").is_some(), "{listed}");
}
