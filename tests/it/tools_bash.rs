//! The bash tool through the binary: output and exit codes, output streamed as deltas,
//! timeouts, and cancel killing the command's whole process group.

use std::time::Duration;

use crate::support::{call_tool, call_updates};
use serde_json::json;

#[tokio::test]
async fn output_exit_code_and_title() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let command = "echo out; echo err >&2; exit 3";
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": command, "description": "Print and fail"}),
    )
    .await;
    let text = result["content"].as_str().unwrap();
    assert!(text.contains("out\n") && text.contains("err\n"), "{text}");
    assert!(text.ends_with("(exit code 3)"), "{text}");
    let call = &agent.updates_of("tool_call")[0];
    assert_eq!(call["kind"], "execute");
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["title"], command);
    assert_eq!(done["rawOutput"]["metadata"]["exitCode"], 3);
}

#[tokio::test]
async fn output_streams_as_deltas_while_the_command_runs() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo first; sleep 0.4; echo second"}),
    )
    .await;
    let deltas: Vec<String> = call_updates(&agent, "call_0")
        .iter()
        .filter(|u| u["_meta"]["tandem"]["outputDelta"] == true)
        .map(|u| {
            u["content"][0]["content"]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        deltas,
        ["first\n", "second\n"],
        "each delta carries only what is new"
    );
}

#[tokio::test]
async fn a_command_past_its_timeout_is_killed() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let started = std::time::Instant::now();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "echo begun; sleep 20", "timeout": 300}),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    let text = result["content"].as_str().unwrap();
    assert!(text.starts_with("begun\n"), "{text}");
    assert!(text.contains("killed after 300 ms"), "{text}");
}

fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process group exists.
    unsafe { kill(-pgid, 0) == 0 }
}

unsafe extern "C" {
    fn kill(pid: i32, signal: i32) -> i32;
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let pid_file = env.project.join("pgid");
    let command = format!(
        "echo $$ > {}; sleep 300 & sleep 300; wait",
        pid_file.display()
    );
    mock.push(crate::support::mock_llm::openai_tool_call(
        "call_0",
        "bash",
        &[&json!({"command": command}).to_string()],
    ));
    let id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "run"}]}),
        )
        .await;
    agent
        .wait_for_update(|u| u["update"]["status"] == "in_progress")
        .await;
    let mut pgid = None;
    for _ in 0..100 {
        if let Some(text) = std::fs::read_to_string(&pid_file)
            .ok()
            .filter(|t| t.ends_with('\n'))
        {
            pgid = text.trim().parse::<i32>().ok();
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pgid = pgid.expect("the command started");
    assert!(group_alive(pgid));
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(id).await;
    assert_eq!(response["result"]["stopReason"], "cancelled");
    for _ in 0..100 {
        if !group_alive(pgid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        !group_alive(pgid),
        "no process of the command's group is left"
    );
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(done["status"], "failed");
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_and_the_model_can_read_the_rest() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "seq 1 5000"}),
    )
    .await;
    let text = result["content"].as_str().unwrap();
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..50]);
    assert!(text.trim_end().ends_with("5000"), "the tail is kept");
    assert!(text.contains("3000 lines truncated"), "the middle is cut");
    let saved = saved_path(text);
    // A folder per project, and in it one per session that no other session can guess.
    let relative = saved.strip_prefix(env.data.join("tool-output")).unwrap();
    let parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    assert_eq!(parts.len(), 3, "{parts:?}");
    assert!(parts[0].starts_with("project-"), "{parts:?}");
    assert!(
        parts[1].len() == 32 && !parts[1].contains(&session),
        "{parts:?}"
    );
    assert_eq!(parts[2], "tool_call_0");
    let full: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), full);
    // Reading the saved file back needs no permission prompt, though it is outside the project.
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": saved, "offset": 2500, "limit": 1}),
    )
    .await;
    assert!(
        result["content"].as_str().unwrap().contains("2500: 2500"),
        "{result}"
    );
    assert!(agent.permission_requests().is_empty());

    // Another session reading it is reading outside its project: it asks (and is refused).
    let other = agent.new_session(&env.project).await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &other,
        "read",
        json!({"filePath": saved, "offset": 2500, "limit": 1}),
    )
    .await;
    assert_eq!(agent.permission_requests().len(), 1, "{result}");
    assert!(!result["content"].as_str().unwrap().contains("2500: 2500"));
}

/// The path a cut output names as where the whole is saved.
fn saved_path(text: &str) -> std::path::PathBuf {
    let after = text
        .split("is saved to ")
        .nth(1)
        .expect("names the saved file");
    std::path::PathBuf::from(after.split(". Use grep").next().unwrap())
}

#[tokio::test]
async fn the_cut_holds_when_the_data_dir_cannot_keep_the_whole() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    // Where the folder would go is a file: saving fails (even for root, unlike a chmod).
    std::fs::write(env.data.join("tool-output"), "").unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "seq 1 200000"}),
    )
    .await;
    let text = result["content"].as_str().unwrap();
    assert!(
        text.len() < 60 * 1024,
        "{} bytes reached the model",
        text.len()
    );
    assert!(
        text.contains("could not be kept"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.trim_end().ends_with("200000"));
}

#[tokio::test]
async fn the_editors_terminal_shows_the_command_and_the_model_gets_plain_newlines() {
    let (mock, env, _agent, _) = crate::support::start("openai").await;
    let mut agent = env.spawn();
    agent.editor = Some(Default::default());
    agent.initialize_with(json!({"terminal": true})).await;
    let session = agent.new_session(&env.project).await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "bash",
        json!({"command": "printf 'one\\ntwo\\n'"}),
    )
    .await;
    // The editor's terminal speaks with a PTY's `\r\n`; the model reads `\n`.
    assert_eq!(result["content"], "one\ntwo\n");
    let created = agent
        .received
        .iter()
        .find(|m| m["method"] == "terminal/create")
        .expect("the command ran in the editor's terminal");
    assert_eq!(created["params"]["sessionId"], session);
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(done["status"], "completed");
    assert_eq!(
        done["content"],
        json!([{"type": "terminal", "terminalId": "term-1"}])
    );
    assert!(done["rawOutput"]["metadata"].get("terminalId").is_none());
}
