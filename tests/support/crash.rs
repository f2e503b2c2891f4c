//! What crash tests share: whether a process still runs (a zombie counts as gone), waiting for
//! one to go, and opening a session in a fresh process the way an editor reopens it.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{AcpProcess, TestEnv};

/// Whether `pid` still runs; a zombie waiting for its reaper counts as gone.
pub fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

/// Waits up to `within` for `pid` to be gone; whether it is.
pub async fn wait_gone(pid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while running(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    !running(pid)
}

/// A new `tandem acp` that has loaded `session` (its replay is in `updates`).
pub async fn load_in_new_process(env: &TestEnv, session: &str) -> AcpProcess {
    let mut agent = env.spawn();
    agent.initialize().await;
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("result").is_some(), "{loaded}");
    agent
}
