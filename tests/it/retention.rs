//! Forking and deleting over ACP, and `tandem sessions` (list, show, export, delete, prune):
//! what goes with a deleted session (children, todos, its own snapshots) and what stays.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::TestEnv;
use crate::support::mock_llm::{openai_text, openai_tool_call};
use serde_json::{Value, json};

/// Runs `tandem sessions <args>` against the test's data dir.
fn sessions(env: &TestEnv, args: &[&str]) -> (bool, String, String) {
    let out = env
        .command(&[&["sessions"], args].concat())
        .env("TANDEM_SNAPSHOT_GRACE_SECS", "0")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The project's snapshot repository.
fn snapshot_repo(env: &TestEnv) -> PathBuf {
    let dir = env.data.join("snapshot");
    let mut repos: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(repos.len(), 1, "{repos:?}");
    repos.remove(0)
}

fn has_object(repo: &Path, object: &str) -> bool {
    Command::new("git")
        .args(["--git-dir"])
        .arg(repo)
        .args(["cat-file", "-e", object])
        .status()
        .unwrap()
        .success()
}

/// The snapshots the session's steps recorded.
fn step_snapshots(db: &rusqlite::Connection, session: &str) -> Vec<String> {
    let mut stmt = db
        .prepare("SELECT data FROM part WHERE session_id = ?1")
        .unwrap();
    stmt.query_map([session], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|d| serde_json::from_str::<Value>(&d.unwrap()).unwrap())
        .filter(|p| p["type"] == "step-start")
        .filter_map(|p| p["snapshot"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn acp_fork_replays_the_copy_and_delete_takes_children_todos_and_lone_snapshots() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let init = agent
        .received
        .iter()
        .find(|m| m["result"]["agentCapabilities"].is_object())
        .unwrap()
        .clone();
    let caps = &init["result"]["agentCapabilities"]["sessionCapabilities"];
    assert_eq!(
        (caps["fork"].clone(), caps["delete"].clone()),
        (json!({}), json!({})),
        "{caps}"
    );

    crate::support::write_turn(&mock, &mut agent, &session, "one", "a.txt").await;
    crate::support::write_turn(&mock, &mut agent, &session, "two", "b.txt").await;
    let messages = agent
        .request("_tandem/session/messages", json!({"sessionId": session}))
        .await;
    let second = messages["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["info"]["role"] == "user")
        .nth(1)
        .unwrap()["info"]["id"]
        .clone();

    // session/fork, up to the second prompt: the editor sees the copy replayed.
    let before = agent.updates.len();
    let forked = agent
        .request("session/fork", json!({"sessionId": session, "cwd": env.project, "mcpServers": [], "_meta": {"messageId": second}}))
        .await;
    let fork_id = forked["result"]["sessionId"].as_str().unwrap().to_owned();
    assert!(forked["result"]["modes"].is_object(), "{forked}");
    // The editor learns the copy's id from the answer: nothing for it comes before that.
    assert!(
        agent.updates[before..]
            .iter()
            .all(|u| u["sessionId"] != fork_id.as_str()),
        "an update for the fork before its answer"
    );
    agent
        .wait_for_update(|u| {
            u["sessionId"] == fork_id.as_str()
                && u["update"]["sessionUpdate"] == "available_commands_update"
        })
        .await;
    let replayed: Vec<String> = agent.updates[before..]
        .iter()
        .filter(|u| {
            u["sessionId"] == fork_id.as_str()
                && u["update"]["sessionUpdate"] == "user_message_chunk"
        })
        .map(|u| u["update"]["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(replayed, ["one"]);
    mock.push(openai_text(&["forked"], "stop"));
    let answer = agent.prompt(&fork_id, "go on").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");

    // A child session (a subagent) and a todo list under the original session.
    let task =
        json!({"description": "Look", "prompt": "Look around please", "subagent_type": "general"});
    mock.push(openai_tool_call("call_task", "task", &[&task.to_string()]));
    mock.push_for("Look around please", openai_text(&["looked"], "stop"));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "delegate").await;
    let todo = json!({"todos": [{"content": "ship", "status": "pending"}]});
    mock.push(openai_tool_call(
        "call_todo",
        "todowrite",
        &[&todo.to_string()],
    ));
    mock.push(openai_text(&["noted"], "stop"));
    agent.prompt(&session, "plan").await;
    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    let child = children["result"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();

    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    db.execute(
        "INSERT INTO permission_approval (project, permission, pattern, action, created_at) VALUES (?1, 'bash', 'ls *', 'allow', 1)",
        [env.project.to_string_lossy()],
    )
    .unwrap();
    let original = step_snapshots(&db, &session);
    let kept = step_snapshots(&db, &fork_id);
    assert!(!original.is_empty() && !kept.is_empty());
    let repo = snapshot_repo(&env);
    let lone: Vec<&String> = original.iter().filter(|t| !kept.contains(t)).collect();
    assert!(
        !lone.is_empty(),
        "the second turn's snapshot is the original's alone"
    );

    // session/delete: the session, its child, its todos and its lone snapshots go.
    drop(agent);
    let mut agent = env.spawn_with(&[("TANDEM_SNAPSHOT_GRACE_SECS", "0")]);
    agent.initialize().await;
    let deleted = agent
        .request("session/delete", json!({"sessionId": session}))
        .await;
    assert_eq!(deleted["result"], json!({}), "{deleted}");
    let count = |sql: &str, id: &str| -> i64 { db.query_row(sql, [id], |r| r.get(0)).unwrap() };
    for id in [&session, &child] {
        assert_eq!(count("SELECT count(*) FROM session WHERE id = ?1", id), 0);
        assert_eq!(
            count("SELECT count(*) FROM message WHERE session_id = ?1", id),
            0
        );
        assert_eq!(
            count("SELECT count(*) FROM part WHERE session_id = ?1", id),
            0
        );
    }
    assert_eq!(
        count("SELECT count(*) FROM todo WHERE session_id = ?1", &session),
        0
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM permission_approval WHERE pattern = ?1",
            "ls *"
        ),
        1,
        "approvals stay"
    );
    // The snapshot store's index holds the project as it is now, whoever recorded it.
    let now = Command::new("git")
        .arg("--git-dir")
        .arg(&repo)
        .arg("write-tree")
        .output()
        .unwrap();
    let now = String::from_utf8_lossy(&now.stdout).trim().to_owned();
    let lone: Vec<&String> = lone.into_iter().filter(|t| **t != now).collect();
    assert!(
        !lone.is_empty(),
        "an earlier snapshot of the original's alone"
    );
    for tree in lone {
        assert!(!has_object(&repo, tree), "{tree} should be gone");
    }
    for tree in &kept {
        assert!(has_object(&repo, tree), "{tree} is the fork's too");
    }
    let gone = agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert_eq!(gone["error"]["code"], -32002);
    let again = agent
        .request("session/delete", json!({"sessionId": session}))
        .await;
    assert_eq!(again["error"]["code"], -32002, "{again}");
    let fork_alive = agent
        .request(
            "session/load",
            json!({"sessionId": fork_id, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(fork_alive.get("error").is_none(), "{fork_alive}");
}

#[tokio::test]
async fn the_sessions_command_lists_shows_exports_deletes_and_prunes() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    crate::support::write_turn(&mock, &mut agent, &session, "hello", "a.txt").await;
    let other = agent.new_session(&env.project).await;
    drop(agent);

    let (ok, listed, _) = sessions(&env, &["list"]);
    assert!(ok);
    assert!(
        listed.lines().any(|l| l.starts_with(&session)) && listed.contains(&other),
        "{listed}"
    );
    let (ok, shown, _) = sessions(&env, &["show", &session]);
    assert!(ok);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        (shown["id"].clone(), shown["status"].clone()),
        (json!(session), json!({"type": "idle"}))
    );

    let (ok, md, _) = sessions(&env, &["export", &session, "--format", "md"]);
    assert!(ok);
    assert!(
        md.contains("## User\n\nhello\n") && md.contains("## Assistant\n"),
        "{md}"
    );
    assert!(md.contains("- `write` a.txt: completed"), "{md}");
    assert!(
        !md.contains("```"),
        "no tool input or output without --with-tools"
    );
    let (_, with_tools, _) = sessions(
        &env,
        &["export", &session, "--format", "md", "--with-tools"],
    );
    assert!(
        with_tools.contains("\"content\":\"hello\\n\"") && with_tools.contains("Created a.txt"),
        "{with_tools}"
    );
    let (ok, json_out, _) = sessions(&env, &["export", &session, "--format", "json"]);
    assert!(ok);
    let transcript: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(transcript["messages"][0]["role"], "user");
    assert_eq!(transcript["messages"][0]["text"], "hello");
    assert_eq!(
        transcript["messages"][1]["tools"][0],
        json!({"tool": "write", "title": "a.txt", "status": "completed"})
    );

    // Prune: only what was not touched for 30 days.
    let db = rusqlite::Connection::open(env.db_path()).unwrap();
    let old = id_ms() - 31 * 24 * 3600 * 1000;
    db.execute(
        "UPDATE session SET updated_at = ?1 WHERE id = ?2",
        rusqlite::params![old, other],
    )
    .unwrap();
    // Saved tool outputs: a stale session folder goes, a fresh one stays.
    let outputs = env.data.join("tool-output/project-0123456789abcdef");
    for (folder, stamp) in [("stale", "40 days ago"), ("fresh", "1 hour ago")] {
        std::fs::create_dir_all(outputs.join(folder)).unwrap();
        std::fs::write(outputs.join(folder).join("tool_x"), "out").unwrap();
        for path in [outputs.join(folder).join("tool_x"), outputs.join(folder)] {
            let touched = std::process::Command::new("touch")
                .args(["-d", stamp])
                .arg(&path)
                .status()
                .unwrap();
            assert!(touched.success());
        }
    }
    let (ok, pruned, err) = sessions(&env, &["prune", "--older-than", "30d"]);
    assert!(ok, "{err}");
    assert!(
        pruned.starts_with("Deleted 1 session(s) older than 30days") && pruned.contains(&other),
        "{pruned}"
    );
    assert!(
        pruned
            .trim_end()
            .ends_with("; 1 saved tool output folder(s)"),
        "{pruned}"
    );
    assert!(!outputs.join("stale").exists() && outputs.join("fresh").exists());
    let (ok, deleted, _) = sessions(&env, &["delete", &session]);
    assert!(ok);
    assert_eq!(deleted.trim(), format!("Deleted 1 session(s): {session}"));
    let (ok, _, err) = sessions(&env, &["delete", &session]);
    assert!(!ok && err.contains("not found"), "{err}");
    let (_, listed, _) = sessions(&env, &["list"]);
    assert_eq!(listed, "");
}

fn id_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}
