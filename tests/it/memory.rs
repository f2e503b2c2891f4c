//! A memory the person can read, through the binary: a note kept in one session (asked with its
//! diff, written for the person alone) is in the next session's system prompt; a rejected write
//! keeps nothing; a note holding a secret is refused before anyone is asked; `/undo` and
//! `/redo` take the change back and make it again; `/memory` lists and forgets.

use serde_json::{Value, json};

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};

async fn start() -> (MockLlm, TestEnv, AcpProcess, String) {
    let (mock, env, agent, session) = crate::support::start("openai").await;
    (mock, env, agent, session)
}

/// The project's memory files (there is one project per test).
fn memory_files(env: &TestEnv) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(env.data.join("memory/projects"))
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

fn remember(mock: &MockLlm, note: &str) {
    let args = json!({"action": "add", "note": note, "reason": "the person said so"});
    mock.push(openai_tool_call("m1", "memory", &[&args.to_string()]));
    mock.push(openai_text(&["Noted."], "stop"));
}

fn told(mock: &MockLlm) -> String {
    let requests = mock.requests();
    let messages = requests.last().unwrap().body["messages"]
        .as_array()
        .unwrap()
        .clone();
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_note_kept_in_one_session_is_read_at_the_start_of_the_next() {
    let (mock, env, mut agent, session) = start().await;
    agent.permission_choice = Some("allow_once".into());
    remember(&mock, "Run `make check` before committing.");
    agent.prompt(&session, "remember how to check").await;
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1);
    let call = &asked[0]["params"]["toolCall"];
    assert_eq!(
        call["title"],
        "Remember (project): Run `make check` before committing."
    );
    assert_eq!(call["content"][0]["type"], "diff", "{call}");
    let files = memory_files(&env);
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let today = &session_date();
    assert!(
        text.ends_with(&format!(
            "- Run `make check` before committing.\n  (session {session}, {today}: the person said \
             so)\n"
        )),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let next = agent.new_session(&env.project).await;
    mock.push(openai_text(&["I know."], "stop"));
    agent.prompt(&next, "how do I check?").await;
    let system = mock.requests().last().unwrap().body["messages"][0]["content"].clone();
    let system = system.as_str().unwrap();
    assert!(
        system.contains("Memory of this project from earlier sessions (")
            && system.contains("- Run `make check` before committing."),
        "{system}"
    );
}

fn session_date() -> String {
    let output = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[tokio::test]
async fn a_rejected_write_keeps_nothing_and_a_secret_is_refused_unasked() {
    let (mock, env, mut agent, session) = start().await;
    agent.permission_choice = Some("reject_once".into());
    remember(&mock, "The team uses trunk-based development.");
    agent.prompt(&session, "remember").await;
    assert!(memory_files(&env).is_empty());
    assert!(told(&mock).contains("rejected"), "{}", told(&mock));

    agent.permission_choice = Some("allow_once".into());
    let asked_before = agent.permission_requests().len();
    remember(
        &mock,
        "Deploy with token ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    );
    agent.prompt(&session, "remember the token").await;
    assert_eq!(
        told(&mock),
        "Not kept: the note looks like it holds a key or token. Memory never keeps secrets; \
         keep where to find it instead (an environment variable's name, a file's path)."
    );
    assert_eq!(agent.permission_requests().len(), asked_before, "not asked");
    assert!(memory_files(&env).is_empty());
}

#[tokio::test]
async fn undo_takes_a_memory_change_back_and_redo_makes_it_again_and_memory_lists_it() {
    let (mock, env, mut agent, session) = start().await;
    agent.permission_choice = Some("allow_once".into());
    remember(&mock, "Tabs, not spaces.");
    agent.prompt(&session, "remember the style").await;
    let file = memory_files(&env).remove(0);
    let kept = std::fs::read_to_string(&file).unwrap();
    agent.prompt(&session, "/undo").await;
    assert!(!file.exists(), "the memory is as before the turn: none");
    agent.prompt(&session, "/redo").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), kept);

    agent.prompt(&session, "/memory").await;
    let text = agent.agent_text();
    assert!(
        text.contains(&format!(
            "This project ({}):\n1. Tabs, not spaces.\n  (session {session}, ",
            file.display()
        )),
        "{text}"
    );
    agent.prompt(&session, "/memory forget 1").await;
    assert!(agent.agent_text().ends_with("Forgot: Tabs, not spaces."));
    let left = std::fs::read_to_string(&file).unwrap();
    assert!(!left.contains("Tabs"), "{left}");
    let _: Value = json!(null);
}
