//! Snapshots, diffs, revert, unrevert, cleanup, `/undo` and `/redo`, and fork, through the
//! real binary over ACP with the mock model, in a git repository and in a plain directory.

use std::path::Path;
use std::process::Command;

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

/// One turn: the model makes `tool` call with `args`, then says "done".
async fn turn(
    mock: &MockLlm,
    agent: &mut AcpProcess,
    session: &str,
    text: &str,
    tool: &str,
    args: Value,
) {
    mock.push(openai_tool_call(
        &format!("call_{text}"),
        tool,
        &[&args.to_string()],
    ));
    mock.push(openai_text(&["done"], "stop"));
    let response = agent.prompt(session, text).await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
}

async fn service(agent: &mut AcpProcess, method: &str, params: Value) -> Value {
    let response = agent
        .request(&format!("_tandem/session/{method}"), params)
        .await;
    assert!(response.get("error").is_none(), "{method}: {response}");
    response["result"].clone()
}

/// The ids of the session's (shown) prompts, oldest first.
async fn prompts(agent: &mut AcpProcess, session: &str) -> Vec<String> {
    let messages = service(agent, "messages", json!({"sessionId": session})).await;
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["info"]["role"] == "user")
        .map(|m| m["info"]["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The user messages of the model's last request.
fn user_turns(mock: &MockLlm) -> Vec<String> {
    let last = mock.requests().last().unwrap().body.clone();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn read(project: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(project.join(file)).ok()
}

/// (path, status, additions, deletions) of each change in a diff answer, sorted.
fn summary(diff: &Value) -> Vec<(String, String, u64, u64)> {
    let mut rows: Vec<_> = diff
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
                c["additions"].as_u64().unwrap(),
                c["deletions"].as_u64().unwrap(),
            )
        })
        .collect();
    rows.sort();
    rows
}

fn row(path: &str, status: &str, additions: u64, deletions: u64) -> (String, String, u64, u64) {
    (path.into(), status.into(), additions, deletions)
}

/// A project with `a.txt` and `b.txt`, optionally a git repository, and three turns: edit a,
/// edit b, create c.
async fn three_turns(git: bool) -> (MockLlm, TestEnv, AcpProcess, String, Vec<String>) {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    if git {
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&env.project)
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::fs::write(env.project.join("a.txt"), "a1\n").unwrap();
    std::fs::write(env.project.join("b.txt"), "b1\nkeep\n").unwrap();
    let edit = |file: &str, old: &str, new: &str| json!({"filePath": file, "oldString": old, "newString": new});
    turn(
        &mock,
        &mut agent,
        &session,
        "one",
        "edit",
        edit("a.txt", "a1", "a2"),
    )
    .await;
    turn(
        &mock,
        &mut agent,
        &session,
        "two",
        "edit",
        edit("b.txt", "b1", "b2\nb3"),
    )
    .await;
    let write = json!({"filePath": "c.txt", "content": "sea\n"});
    // Editors often start a prompt with blank lines; /undo quotes the first words.
    turn(&mock, &mut agent, &session, "\n\n  three", "write", write).await;
    let ids = prompts(&mut agent, &session).await;
    assert_eq!(ids.len(), 3);
    (mock, env, agent, session, ids)
}

#[tokio::test]
async fn diffs_reverts_unreverts_and_makes_a_revert_permanent() {
    for git in [true, false] {
        let (mock, env, mut agent, session, ids) = three_turns(git).await;
        let p = &env.project;
        // Each turn that changed files ends with a line saying so.
        let ends: Vec<String> = agent
            .updates_of("agent_message_chunk")
            .iter()
            .filter_map(|u| u["content"]["text"].as_str())
            .filter(|t| t.contains("/undo"))
            .map(str::to_owned)
            .collect();
        assert_eq!(
            ends,
            [
                "\n\n1 file changed (+1 \u{2212}1). /undo reverts this turn.\n",
                "\n\n1 file changed (+2 \u{2212}1). /undo reverts this turn.\n",
                "\n\n1 file changed (+1 \u{2212}0). /undo reverts this turn.\n",
            ],
            "git: {git}"
        );

        // Diffs from each boundary to now, and between two boundaries.
        let diff = |from: &str| json!({"sessionId": session, "messageId": from});
        let all = service(&mut agent, "diff", diff(&ids[0])).await;
        assert_eq!(
            summary(&all),
            [
                row("a.txt", "modified", 1, 1),
                row("b.txt", "modified", 2, 1),
                row("c.txt", "added", 1, 0)
            ]
        );
        let a = all
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == "a.txt")
            .unwrap();
        assert_eq!(
            (a["before"].as_str(), a["after"].as_str()),
            (Some("a1\n"), Some("a2\n"))
        );
        let from_two = service(&mut agent, "diff", diff(&ids[1])).await;
        assert_eq!(
            summary(&from_two),
            [row("b.txt", "modified", 2, 1), row("c.txt", "added", 1, 0)]
        );
        let from_three = service(&mut agent, "diff", diff(&ids[2])).await;
        assert_eq!(summary(&from_three), [row("c.txt", "added", 1, 0)]);
        let between = json!({"sessionId": session, "messageId": ids[0], "toMessageId": ids[1]});
        let one_only = service(&mut agent, "diff", between).await;
        assert_eq!(summary(&one_only), [row("a.txt", "modified", 1, 1)]);

        // Revert to the first turn: every file as it was before it, byte for byte.
        let reverted = service(
            &mut agent,
            "revert",
            json!({"sessionId": session, "messageId": ids[0]}),
        )
        .await;
        assert_eq!(reverted["revert"]["messageID"], ids[0].as_str());
        assert_eq!(
            reverted["revert"]["files"],
            json!(["a.txt", "b.txt", "c.txt"])
        );
        assert_eq!(read(p, "a.txt").as_deref(), Some("a1\n"));
        assert_eq!(read(p, "b.txt").as_deref(), Some("b1\nkeep\n"));
        assert_eq!(read(p, "c.txt"), None);
        assert!(
            prompts(&mut agent, &session).await.is_empty(),
            "hidden from the history"
        );

        // Unrevert: files and messages back.
        let back = service(&mut agent, "unrevert", json!({"sessionId": session})).await;
        assert!(back.get("revert").is_none(), "{back}");
        assert_eq!(read(p, "a.txt").as_deref(), Some("a2\n"));
        assert_eq!(read(p, "b.txt").as_deref(), Some("b2\nb3\nkeep\n"));
        assert_eq!(read(p, "c.txt").as_deref(), Some("sea\n"));
        assert_eq!(prompts(&mut agent, &session).await, ids);

        // Revert to the second turn, then prompt: the revert is permanent.
        service(
            &mut agent,
            "revert",
            json!({"sessionId": session, "messageId": ids[1]}),
        )
        .await;
        assert_eq!(read(p, "a.txt").as_deref(), Some("a2\n"));
        assert_eq!(read(p, "b.txt").as_deref(), Some("b1\nkeep\n"));
        assert_eq!(read(p, "c.txt"), None);
        mock.push(openai_text(&["fresh"], "stop"));
        agent.prompt(&session, "four").await;
        // The model saw the first turn and the new prompt, never the reverted turns.
        assert_eq!(user_turns(&mock), ["one", "four"]);
        let db = rusqlite::Connection::open(env.db_path()).unwrap();
        let count = |sql: &str, id: &str| -> i64 { db.query_row(sql, [id], |r| r.get(0)).unwrap() };
        for gone in &ids[1..] {
            assert_eq!(count("SELECT count(*) FROM message WHERE id = ?1", gone), 0);
            assert_eq!(
                count("SELECT count(*) FROM part WHERE message_id = ?1", gone),
                0
            );
        }
        assert_eq!(
            count("SELECT count(*) FROM message WHERE id = ?1", &ids[0]),
            1
        );
        assert_eq!(
            count(
                "SELECT count(*) FROM session_revert WHERE session_id = ?1",
                &session
            ),
            0
        );
        let shown = prompts(&mut agent, &session).await;
        assert_eq!(shown.len(), 2);
        assert_eq!(shown[0], ids[0]);
        // Nothing to unrevert any more.
        service(&mut agent, "unrevert", json!({"sessionId": session})).await;
        assert_eq!(read(p, "c.txt"), None);
        if git {
            // The person's repository was never written to.
            assert!(!p.join(".git/index").exists());
        }
    }
}

#[tokio::test]
async fn undo_and_redo_walk_back_and_forth_without_the_model() {
    let (mock, env, mut agent, session, ids) = three_turns(false).await;
    let p = &env.project;
    let asked = mock.requests().len();
    agent.prompt(&session, "/undo").await;
    assert_eq!(read(p, "c.txt"), None);
    assert_eq!(read(p, "b.txt").as_deref(), Some("b2\nb3\nkeep\n"));
    assert!(
        agent
            .agent_text()
            .contains("Undid the turn \u{201c}three\u{201d}: put back 1 file."),
        "{}",
        agent.agent_text()
    );
    agent.prompt(&session, "/undo").await;
    assert_eq!(read(p, "b.txt").as_deref(), Some("b1\nkeep\n"));
    assert_eq!(prompts(&mut agent, &session).await, ids[..1]);
    agent.prompt(&session, "/redo").await;
    assert_eq!(read(p, "b.txt").as_deref(), Some("b2\nb3\nkeep\n"));
    assert_eq!(read(p, "c.txt"), None);
    assert_eq!(prompts(&mut agent, &session).await, ids[..2]);
    agent.prompt(&session, "/redo").await;
    assert_eq!(read(p, "c.txt").as_deref(), Some("sea\n"));
    assert_eq!(prompts(&mut agent, &session).await, ids);
    agent.prompt(&session, "/redo").await;
    assert!(
        agent.agent_text().ends_with("Nothing to redo."),
        "{}",
        agent.agent_text()
    );
    assert_eq!(
        mock.requests().len(),
        asked,
        "no model call for /undo or /redo"
    );

    // After an undo, a reload replays what is shown: no trace of the undone turn.
    agent.prompt(&session, "/undo").await;
    drop(agent);
    let mut again = env.spawn();
    again.initialize().await;
    let loaded = again
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("error").is_none(), "{loaded}");
    let said: Vec<String> = again
        .updates_of("user_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(said, ["one", "two"]);
    let ends = again
        .updates_of("agent_message_chunk")
        .iter()
        .filter(|u| {
            u["content"]["text"]
                .as_str()
                .unwrap()
                .contains("/undo reverts")
        })
        .count();
    assert_eq!(ends, 2, "the replay ends each shown turn as it ended live");
    // The undo is still pending in the new process: /redo brings the turn back.
    again.prompt(&session, "/redo").await;
    assert_eq!(read(p, "c.txt").as_deref(), Some("sea\n"));
}

#[tokio::test]
async fn a_busy_session_refuses_revert_and_undo() {
    let (mock, env, mut agent, session, ids) = three_turns(false).await;
    mock.push(openai_text(&["slow", " answer"], "stop").hang_after(2));
    let running = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "wait"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["content"]["text"] == "slow")
        .await;
    let status = service(&mut agent, "status", json!({"sessionId": session})).await;
    assert_eq!(status, json!({"type": "busy"}));
    let refused = agent
        .request(
            "_tandem/session/revert",
            json!({"sessionId": session, "messageId": ids[0]}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32010, "{refused}");
    let undo = agent
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "/undo"}]}),
        )
        .await;
    assert_eq!(undo["error"]["code"], -32010, "{undo}");
    assert_eq!(
        read(&env.project, "c.txt").as_deref(),
        Some("sea\n"),
        "nothing reverted"
    );
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let ended = agent.response(running).await;
    assert_eq!(ended["result"]["stopReason"], "cancelled");
    let status = service(&mut agent, "status", json!({"sessionId": session})).await;
    assert_eq!(status, json!({"type": "idle"}));
    let all = service(&mut agent, "status", json!({})).await;
    assert_eq!(all, json!({}), "no session is busy");
}

#[tokio::test]
async fn a_symlink_escaping_the_project_is_refused_with_nothing_written() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let write = json!({"filePath": "sub/x.txt", "content": "inside\n"});
    turn(&mock, &mut agent, &session, "one", "write", write).await;
    let first = prompts(&mut agent, &session).await.remove(0);
    // The directory becomes a link to a place outside the project.
    let outside = env.root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::remove_dir_all(env.project.join("sub")).unwrap();
    std::os::unix::fs::symlink(&outside, env.project.join("sub")).unwrap();
    std::fs::write(outside.join("x.txt"), "precious\n").unwrap();
    let refused = agent
        .request(
            "_tandem/session/revert",
            json!({"sessionId": session, "messageId": first}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("sub/x.txt") && message.contains("outside the project"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("x.txt")).unwrap(),
        "precious\n"
    );
    assert_eq!(
        prompts(&mut agent, &session).await,
        [first],
        "nothing hidden either"
    );
}

#[tokio::test]
async fn fork_copies_the_history_before_a_message_with_new_ids() {
    let (mock, _env, mut agent, session, ids) = three_turns(false).await;
    let forked = service(
        &mut agent,
        "fork",
        json!({"sessionId": session, "messageId": ids[2]}),
    )
    .await;
    let fork_id = forked["id"].as_str().unwrap().to_owned();
    assert_ne!(fork_id, session);
    assert!(
        forked["title"].as_str().unwrap().ends_with(" (fork #1)"),
        "{forked}"
    );
    assert_eq!(forked["fork"]["sessionID"], session.as_str());
    assert_eq!(forked["fork"]["messageID"], ids[2].as_str());
    let copied = prompts(&mut agent, &fork_id).await;
    assert_eq!(copied.len(), 2);
    assert!(copied.iter().all(|id| !ids.contains(id)), "new ids");
    let again = service(&mut agent, "fork", json!({"sessionId": session})).await;
    assert!(
        again["title"].as_str().unwrap().ends_with(" (fork #2)"),
        "{again}"
    );
    assert_eq!(
        prompts(&mut agent, again["id"].as_str().unwrap())
            .await
            .len(),
        3
    );

    // The fork is a session like any other: load it and prompt it.
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": fork_id, "cwd": _env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("error").is_none(), "{loaded}");
    mock.push(openai_text(&["forked answer"], "stop"));
    agent.prompt(&fork_id, "carry on").await;
    assert_eq!(user_turns(&mock), ["one", "two", "carry on"]);
}

#[tokio::test]
async fn undo_never_claims_to_put_back_what_no_snapshot_holds() {
    // Snapshots off: /undo takes the turn out of the conversation and names what it cannot
    // put back (the written file, and what a command did).
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"snapshot": false})).await;
    let write = json!({"filePath": "c.txt", "content": "sea\n"});
    turn(&mock, &mut agent, &session, "one", "write", write).await;
    let bash = json!({"command": "echo x > d.txt"});
    turn(&mock, &mut agent, &session, "two", "bash", bash).await;
    agent.prompt(&session, "/undo").await;
    let text = agent.agent_text();
    assert!(
        text.contains(
            "could not put back what no snapshot holds: whatever `echo x > d.txt` changed"
        ),
        "{text}"
    );
    assert!(!text.contains("Undid the turn"), "{text}");
    agent.prompt(&session, "/undo").await;
    let text = agent.agent_text();
    assert!(
        text.contains("could not put back what no snapshot holds: c.txt."),
        "{text}"
    );
    // Nothing was put back, and nothing claims it was.
    assert_eq!(read(&env.project, "c.txt").as_deref(), Some("sea\n"));
}

#[tokio::test]
async fn a_snapshot_that_fails_is_told_when_it_happens() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    // Where the project's snapshot store would go is a file: recording fails.
    std::fs::create_dir_all(&env.data).unwrap();
    std::fs::write(env.data.join("snapshot"), "").unwrap();
    let write = json!({"filePath": "c.txt", "content": "sea\n"});
    turn(&mock, &mut agent, &session, "one", "write", write).await;
    let text = agent.agent_text();
    assert!(
        text.contains("Tandem could not record a snapshot of the project this turn"),
        "{text}"
    );
    assert!(
        text.contains("/undo cannot put back the files it changed"),
        "{text}"
    );
    let undone = agent.prompt(&session, "/undo").await;
    assert!(
        agent
            .agent_text()
            .contains("could not put back what no snapshot holds: c.txt."),
        "{undone} {}",
        agent.agent_text()
    );
}

#[tokio::test]
async fn undo_names_commands_that_may_have_written_beyond_its_snapshots_and_not_readers() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"permission": {"bash": "allow", "external_directory": "allow"}}),
    )
    .await;
    std::fs::write(env.project.join("c.txt"), "sea\n").unwrap();
    let outside = env.root.path().join("outside.txt");
    // A reader, and a command writing beyond the project (the snapshot holds the project).
    turn(
        &mock,
        &mut agent,
        &session,
        "one",
        "bash",
        json!({"command": "cat c.txt && git status"}),
    )
    .await;
    let line = format!("echo x > {}", outside.display());
    turn(
        &mock,
        &mut agent,
        &session,
        "two",
        "bash",
        json!({"command": line}),
    )
    .await;
    agent.prompt(&session, "/undo").await;
    let text = agent.agent_text();
    assert!(
        text.contains(&format!(
            "could not put back what no snapshot holds: whatever `{line}` changed."
        )),
        "{text}"
    );
    agent.prompt(&session, "/undo").await;
    let text = agent.agent_text();
    assert!(!text.contains("cat c.txt"), "{text}");
    assert!(
        text.contains("Undid the turn \u{201c}one\u{201d}"),
        "{text}"
    );
}
