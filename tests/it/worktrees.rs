//! A worktree per parallel child, through the binary, in a real git repository: two children
//! editing different files merge cleanly as diffs on their calls (the person's index untouched,
//! an uncommitted change seen by the children), `/undo` takes both back; two editing the same
//! line: one merges, the other conflicts, leaving the files alone and its branch kept; no
//! worktree is left after a SIGKILL and a restart; a folder that is no repository is refused.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::mock_llm::{openai_text, openai_tool_call, openai_tool_calls};
use crate::support::{AcpProcess, MockLlm, TestEnv};

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A repository with a.txt and b.txt committed and c.txt changed since.
fn repository(env: &TestEnv) {
    let dir = &env.project;
    git(dir, &["init", "-q"]);
    for (name, text) in [("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    git(dir, &["add", "a.txt", "b.txt", "c.txt"]);
    git(dir, &["commit", "-qm", "start"]);
    std::fs::write(dir.join("c.txt"), "c, not committed\n").unwrap();
}

fn task(prompt: &str) -> String {
    json!({"description": prompt, "prompt": prompt, "subagent_type": "general",
           "isolation": "worktree"})
    .to_string()
}

/// A child's call that writes `content` (one line) into `file`.
fn write(id: &str, file: &str, content: &str) -> crate::support::mock_llm::MockResponse {
    let command = format!("printf '%s\\n' '{}' > {file}", content.trim_end());
    let args = json!({"command": command, "description": "write"}).to_string();
    openai_tool_call(id, "bash", &[&args])
}

async fn start() -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    repository(&env);
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// The tool results the parent's last request carried.
fn results(mock: &MockLlm) -> Vec<String> {
    let requests = mock.requests();
    requests.last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

fn worktrees_left(env: &TestEnv) -> Vec<String> {
    std::fs::read_dir(env.data.join("worktrees"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn two_children_in_worktrees_merge_cleanly_as_diffs_and_undo_takes_both_back() {
    let (mock, env, mut agent, session) = start().await;
    mock.push(openai_tool_calls(&[
        ("t1", "task", &task("Edit A")),
        ("t2", "task", &task("Edit B")),
    ]));
    mock.push_for("Edit A", write("w1", "a.txt", "a from A\n"));
    mock.push_for("Edit A", openai_text(&["A done."], "stop"));
    let show = json!({"command": "cat c.txt", "description": "see"}).to_string();
    mock.push_for("Edit B", openai_tool_call("s1", "bash", &[&show]));
    mock.push_for("Edit B", write("w2", "b.txt", "b from B\n"));
    mock.push_for("Edit B", openai_text(&["B done."], "stop"));
    mock.push(openai_text(&["Both merged."], "stop"));
    agent.permission_choice = Some("allow_once".into());
    let response = agent.prompt(&session, "split the work").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let read = |name: &str| std::fs::read_to_string(env.project.join(name)).unwrap();
    assert_eq!(read("a.txt"), "a from A\n");
    assert_eq!(read("b.txt"), "b from B\n");
    assert_eq!(read("c.txt"), "c, not committed\n");
    let told = results(&mock);
    assert!(
        told[0].contains("its changes were merged into your files: a.txt.)"),
        "{told:?}"
    );
    assert!(
        told[1].contains("its changes were merged into your files: b.txt.)"),
        "{told:?}"
    );
    // The child saw the caller's uncommitted change.
    let child_b = mock
        .requests()
        .iter()
        .map(|r| r.body["messages"].to_string())
        .find(|m| m.contains("Edit B") && m.contains("cat c.txt"))
        .unwrap();
    assert!(child_b.contains("c, not committed"), "{child_b}");
    // Each merge is shown as its call's diff.
    let diffs: Vec<Value> = agent
        .updates_of("tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == "t1" || u["toolCallId"] == "t2")
        .flat_map(|u| u["content"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["type"] == "diff")
        .collect();
    let paths: Vec<String> = diffs
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        paths.iter().any(|p| p.ends_with("a.txt")) && paths.iter().any(|p| p.ends_with("b.txt")),
        "{diffs:#?}"
    );
    // The person's index is as it was: nothing staged.
    assert_eq!(
        git(&env.project, &["status", "--porcelain"]),
        " M a.txt\n M b.txt\n M c.txt\n?? README.md\n?? tandem.json\n"
    );
    assert!(
        worktrees_left(&env).is_empty(),
        "{:?}",
        worktrees_left(&env)
    );
    assert_eq!(git(&env.project, &["branch", "--list", "tandem/*"]), "");

    agent.prompt(&session, "/undo").await;
    assert_eq!(read("a.txt"), "a\n");
    assert_eq!(read("b.txt"), "b\n");
    assert_eq!(read("c.txt"), "c, not committed\n");
}

#[tokio::test]
async fn two_children_changing_the_same_line_leave_one_merge_and_one_kept_branch() {
    let (mock, env, mut agent, session) = start().await;
    mock.push(openai_tool_calls(&[
        ("t1", "task", &task("Edit one")),
        ("t2", "task", &task("Edit two")),
    ]));
    mock.push_for("Edit one", write("w1", "a.txt", "a from one\n"));
    mock.push_for("Edit one", openai_text(&["One done."], "stop"));
    mock.push_for("Edit two", write("w2", "a.txt", "a from two\n"));
    mock.push_for("Edit two", openai_text(&["Two done."], "stop"));
    mock.push(openai_text(&["One conflicted."], "stop"));
    let response = agent.prompt(&session, "both edit a").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let told = results(&mock);
    let merged = told
        .iter()
        .position(|t| t.contains("merged into your files: a.txt"));
    let conflicted = told
        .iter()
        .position(|t| t.contains("Its changes conflict with yours in: a.txt."));
    let (Some(merged), Some(conflicted)) = (merged, conflicted) else {
        panic!("{told:#?}");
    };
    let winner = ["a from one\n", "a from two\n"][merged];
    let loser = ["a from one\n", "a from two\n"][conflicted];
    assert_eq!(
        std::fs::read_to_string(env.project.join("a.txt")).unwrap(),
        winner
    );
    let branch = told[conflicted]
        .split("its work is on branch ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .unwrap()
        .to_owned();
    assert_eq!(
        git(&env.project, &["show", &format!("{branch}:a.txt")]),
        loser
    );
    // Only the kept branch's record remains; no folder.
    let left = worktrees_left(&env);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].ends_with(".json"), "{left:?}");
    // The person hands the branch to the model to merge and resolve.
    mock.push(openai_text(&["Merging."], "stop"));
    agent.prompt(&session, &format!("/merge {branch}")).await;
    let asked = mock.requests().last().unwrap().body["messages"].to_string();
    assert!(
        asked.contains(&format!("Branch: {branch}")) && asked.contains("git merge --no-commit"),
        "{asked}"
    );
}

#[tokio::test]
async fn no_worktree_is_left_after_a_sigkill_and_a_restart() {
    let (mock, env, mut agent, session) = start().await;
    mock.push(openai_tool_call("t1", "task", &[&task("Wait a while")]));
    let sleep = json!({"command": "exec sleep 3191", "description": "wait"}).to_string();
    mock.push_for("Wait a while", openai_tool_call("s1", "bash", &[&sleep]));
    let _turn = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let made = |env: &TestEnv| {
        std::fs::read_dir(env.data.join("worktrees"))
            .map(|entries| entries.flatten().any(|e| e.path().is_dir()))
            .unwrap_or(false)
    };
    while !made(&env) {
        assert!(Instant::now() < deadline, "no worktree was made");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = agent.child.id().unwrap() as i32;
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let _ = agent.child.wait().await;
    assert!(!worktrees_left(&env).is_empty());

    let mut again = env.spawn();
    again.initialize().await;
    again.new_session(&env.project).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !worktrees_left(&env).is_empty() {
        assert!(
            Instant::now() < deadline,
            "left: {:?}",
            worktrees_left(&env)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(git(&env.project, &["branch", "--list", "tandem/*"]), "");
    assert_eq!(
        git(&env.project, &["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count(),
        1
    );
}

#[tokio::test]
async fn a_folder_that_is_no_repository_is_refused_clearly() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call("t1", "task", &[&task("Edit A")]));
    mock.push(openai_text(&["Could not."], "stop"));
    agent.prompt(&session, "isolate").await;
    let real = std::fs::canonicalize(&env.project).unwrap();
    let told = results(&mock);
    assert_eq!(
        told,
        [format!(
            "The subagent was not started: isolation in a worktree needs the project to be a \
             git repository, and {} is not in one.",
            real.display()
        )]
    );
}

#[tokio::test]
async fn an_agent_marked_isolated_always_works_in_a_worktree() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    repository(&env);
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["agent"] = json!({"isolated": {"mode": "subagent", "description": "Works apart",
                                          "isolation": "worktree"}});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let call = json!({"description": "Apart", "prompt": "Work apart", "subagent_type": "isolated"});
    mock.push(openai_tool_call("t1", "task", &[&call.to_string()]));
    mock.push_for("Work apart", write("w1", "b.txt", "b apart\n"));
    mock.push_for("Work apart", openai_text(&["Done apart."], "stop"));
    mock.push(openai_text(&["Merged."], "stop"));
    agent.prompt(&session, "go").await;
    let child = mock
        .requests()
        .iter()
        .map(|r| r.body["messages"].to_string())
        .find(|m| m.contains("Work apart"))
        .unwrap();
    let home = env.data.join("worktrees");
    assert!(
        child.contains(&format!("Working directory: {}/", home.display())),
        "{child}"
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("b.txt")).unwrap(),
        "b apart\n"
    );
}

#[tokio::test]
async fn deleting_the_session_removes_a_kept_branch() {
    let (mock, env, mut agent, session) = start().await;
    mock.push(openai_tool_calls(&[
        ("t1", "task", &task("Edit one")),
        ("t2", "task", &task("Edit two")),
    ]));
    mock.push_for("Edit one", write("w1", "a.txt", "a from one\n"));
    mock.push_for("Edit one", openai_text(&["One done."], "stop"));
    mock.push_for("Edit two", write("w2", "a.txt", "a from two\n"));
    mock.push_for("Edit two", openai_text(&["Two done."], "stop"));
    mock.push(openai_text(&["One conflicted."], "stop"));
    agent.prompt(&session, "both edit a").await;
    assert_ne!(git(&env.project, &["branch", "--list", "tandem/*"]), "");
    let deleted = agent
        .request("session/delete", json!({"sessionId": session}))
        .await;
    assert!(deleted.get("result").is_some(), "{deleted}");
    assert_eq!(git(&env.project, &["branch", "--list", "tandem/*"]), "");
    assert!(
        worktrees_left(&env).is_empty(),
        "{:?}",
        worktrees_left(&env)
    );
}
