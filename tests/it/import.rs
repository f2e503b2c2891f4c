//! `tandem import` through the binary, on session files the real agents wrote
//! (tests/fixtures/import/, recorded by scripts/fixtures/record.sh: Claude Code, Codex,
//! OpenCode, Gemini CLI): Claude Code's transcript
//! is listed for its project, imported once (a second import finds it), listed by
//! `session/list` with its origin, replayed by `session/load` with its thinking, words and tool
//! calls (diffs included), and prompted once more with its history in the request; a
//! truncated file loses only its broken line, a garbage file is reported, and the sources are
//! never changed.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::mock_llm::openai_text;
use crate::support::{AcpProcess, MockLlm, MockResponse, TestEnv};

/// Where the fixtures' project was; tests put their own project's path in its place.
const RECORDED: &str = "/tmp/tandem-fixture-project";

fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(relative)
}

/// Claude Code's transcript, put where Claude Code keeps it for `env`'s project; its path.
fn claude_transcript(env: &TestEnv) -> PathBuf {
    let dir = fixture("claude-code-2.1.328/projects/-tmp-tandem-fixture-project");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace(RECORDED, &env.project.to_string_lossy());
    let mangled: String = env
        .project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let home = env.root.path().join(".claude/projects").join(mangled);
    std::fs::create_dir_all(&home).unwrap();
    let to = home.join(file.file_name().unwrap());
    std::fs::write(&to, text).unwrap();
    to
}

/// Codex's rollout, put where Codex keeps it for `env`'s project.
fn codex_rollout(env: &TestEnv) -> PathBuf {
    let day = fixture("codex-0.169.0/sessions/2026/11/29");
    let file = std::fs::read_dir(&day)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace(RECORDED, &env.project.to_string_lossy());
    let home = env.root.path().join(".codex/sessions/2026/11/29");
    std::fs::create_dir_all(&home).unwrap();
    let to = home.join(file.file_name().unwrap());
    std::fs::write(&to, text).unwrap();
    to
}

/// OpenCode's database, put in its data dir for `env`'s project.
fn opencode_database(env: &TestEnv) -> PathBuf {
    let dir = env.root.path().join(".local/share/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let to = dir.join("opencode.db");
    std::fs::copy(fixture("opencode-1.18.33/opencode.db"), &to).unwrap();
    let conn = rusqlite::Connection::open(&to).unwrap();
    let project = env.project.to_string_lossy();
    for table in ["session", "message", "part"] {
        let column = if table == "session" {
            "directory"
        } else {
            "data"
        };
        conn.execute(
            &format!("UPDATE {table} SET {column} = replace({column}, ?1, ?2)"),
            (RECORDED, project.as_ref()),
        )
        .unwrap();
    }
    to
}

/// Gemini CLI's chats folder, a chat the person saved (`checkpoint-demo.json`) and its list of
/// projects, put in its home for `env`'s project; the chat's path.
fn gemini_chats(env: &TestEnv) -> PathBuf {
    let from = fixture("gemini-cli-0.61.0");
    let home = env.root.path().join(".gemini");
    let project = env.project.to_string_lossy();
    let copy = |relative: &str| {
        let text = std::fs::read_to_string(from.join(relative)).unwrap();
        let to = home.join(relative);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, text.replace(RECORDED, &project)).unwrap();
        to
    };
    copy("projects.json");
    copy("tmp/tandem-fixture-project/.project_root");
    copy("tmp/tandem-fixture-project/checkpoint-demo.json");
    let chats = from.join("tmp/tandem-fixture-project/chats");
    let file = std::fs::read_dir(&chats).unwrap().flatten().next().unwrap();
    copy(&format!(
        "tmp/tandem-fixture-project/chats/{}",
        file.file_name().to_string_lossy()
    ))
}

/// The only listed session, opened with `session/load` after checking it was imported from
/// `agent`; its id.
async fn load_imported(agent: &mut AcpProcess, env: &TestEnv, from: &str) -> String {
    let list = agent.request("session/list", json!({})).await;
    let sessions = list["result"]["sessions"].as_array().unwrap().clone();
    assert_eq!(
        sessions.len(),
        1,
        "one session, however often imported: {list}"
    );
    assert_eq!(sessions[0]["_meta"]["tandem"]["importedFrom"], from);
    let session = sessions[0]["sessionId"].as_str().unwrap().to_owned();
    agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    session
}

/// Checks what every fixture's replay shows (the prompt, the first thought, the words, the
/// tool calls' kinds) and returns the tool calls.
fn replayed(agent: &AcpProcess, kinds: [&str; 3]) -> Vec<Value> {
    assert_eq!(
        agent.updates_of("user_message_chunk")[0]["content"]["text"],
        "Create hello.txt with a greeting"
    );
    assert_eq!(
        agent.updates_of("agent_thought_chunk")[0]["content"]["text"],
        "The person wants a greeting file."
    );
    assert_eq!(
        agent.agent_text(),
        "I'll create the file.Done: hello.txt now says hello, world."
    );
    let calls = agent.updates_of("tool_call");
    let shown: Vec<&str> = calls.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(shown, kinds, "{calls:?}");
    calls
}

/// The diff a replayed tool call shows.
fn diff_of(call: &Value) -> Value {
    call["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "diff")
        .cloned()
        .unwrap_or_else(|| panic!("the call shows a diff: {call}"))
}

/// The tools the model was told were called, in order, from a Chat Completions history.
fn called(messages: &Value) -> Vec<&str> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"][0]["function"]["name"].as_str())
        .collect()
}

fn tandem(env: &TestEnv, args: &[&str]) -> (bool, String) {
    let out = env.command(args).output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), said)
}

#[tokio::test]
async fn claude_codes_transcript_is_imported_once_listed_replayed_and_continued() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let source = claude_transcript(&env);
    let before = std::fs::read(&source).unwrap();

    let (ok, listed) = tandem(&env, &["import", "--list"]);
    assert!(ok, "{listed}");
    assert!(
        listed.starts_with("claude-code  2026-11-29T09:59  Create hello.txt with a greeting\n"),
        "{listed}"
    );
    let (ok, said) = tandem(&env, &["import", "--all"]);
    assert!(
        ok && said.starts_with("Imported \"Create hello.txt with a greeting\" from Claude Code"),
        "{said}"
    );
    let (ok, again) = tandem(&env, &["import", "--all"]);
    assert!(ok && again.starts_with("Already imported:"), "{again}");
    assert_eq!(
        std::fs::read(&source).unwrap(),
        before,
        "the source is never changed"
    );

    let mut agent = env.spawn();
    agent.initialize().await;
    let list = agent.request("session/list", json!({})).await;
    let sessions = list["result"]["sessions"].as_array().unwrap().clone();
    assert_eq!(
        sessions.len(),
        1,
        "one session, however often imported: {list}"
    );
    assert_eq!(sessions[0]["title"], "Create hello.txt with a greeting");
    assert_eq!(
        sessions[0]["_meta"]["tandem"]["importedFrom"],
        "claude-code"
    );
    let session = sessions[0]["sessionId"].as_str().unwrap().to_owned();

    agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let user: Vec<Value> = agent.updates_of("user_message_chunk");
    assert_eq!(
        user[0]["content"]["text"],
        "Create hello.txt with a greeting"
    );
    let thoughts = agent.updates_of("agent_thought_chunk");
    assert_eq!(
        thoughts[0]["content"]["text"],
        "The person wants a greeting file; I will write it."
    );
    assert_eq!(
        agent.agent_text(),
        "I'll create the file.Done: hello.txt now says hello, world."
    );
    let calls = agent.updates_of("tool_call");
    let hello = env.project.join("hello.txt");
    let summary: Vec<(Value, Value, Value)> = calls
        .iter()
        .map(|c| (c["kind"].clone(), c["status"].clone(), c["title"].clone()))
        .collect();
    assert_eq!(summary.len(), 3, "{calls:?}");
    assert_eq!(summary[0].0, "edit");
    assert_eq!(summary[2].0, "execute");
    assert!(summary.iter().all(|s| s.1 == "completed"), "{summary:?}");
    let diff = |n: usize| diff_of(&calls[n]);
    assert_eq!(diff(0)["path"], hello.to_string_lossy().as_ref());
    assert_eq!(diff(0)["oldText"], Value::Null);
    assert_eq!(diff(0)["newText"], "hello\n");
    assert_eq!(diff(1)["oldText"], "hello\n");
    assert_eq!(diff(1)["newText"], "hello, world\n");
    assert_eq!(calls[1]["rawInput"]["oldString"], "hello");

    // Prompted again on another model: the history goes in the provider's format.
    mock.push(openai_text(&["It says hello, world."], "stop"));
    let response = agent.prompt(&session, "what does it say?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let messages = mock.requests()[0].body["messages"].clone();
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "user"
        ],
        "{messages}"
    );
    let write = &messages[2]["tool_calls"][0]["function"];
    assert_eq!(write["name"], "write");
    let args: Value = serde_json::from_str(write["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"filePath": hello, "content": "hello\n"}));
    assert!(
        messages[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("File created successfully")
    );
    assert_eq!(messages[9]["content"], "what does it say?");
}

#[tokio::test]
async fn a_truncated_file_loses_its_broken_line_and_garbage_is_reported() {
    let env = TestEnv::new();
    let source = claude_transcript(&env);
    let text = std::fs::read_to_string(&source).unwrap();
    let cut = text.trim_end().rfind('\n').unwrap() + 40;
    std::fs::write(&source, &text[..cut]).unwrap();
    let garbage = env.root.path().join("garbage.jsonl");
    std::fs::write(&garbage, "not json at all\n\u{0}\u{1}").unwrap();

    let (ok, said) = tandem(&env, &["import", "--all"]);
    assert!(ok, "{said}");
    assert!(said.contains("(1 unreadable lines skipped)."), "{said}");
    let (ok, said) = tandem(&env, &["import", garbage.to_str().unwrap()]);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!(
            "Skipped {}: it holds no JSON record: not a session file Tandem knows.",
            garbage.display()
        )),
        "{said}"
    );
    assert_eq!(std::fs::read(&source).unwrap(), &text.as_bytes()[..cut]);

    // A release newer than those Tandem reads: said, and skipped.
    let newer = env.root.path().join("newer.jsonl");
    let text = text.replace("\"version\":\"2.1.328\"", "\"version\":\"3.0.0\"");
    std::fs::write(&newer, text).unwrap();
    let (ok, said) = tandem(&env, &["import", newer.to_str().unwrap()]);
    assert!(!ok, "{said}");
    assert!(
        said.contains(": Claude Code 3.0.0 wrote it, in a format newer than Tandem reads (Claude Code 2.x and earlier)."),
        "{said}"
    );
}

#[tokio::test]
async fn codexs_rollout_is_imported_with_its_commands_and_patch_and_continued() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    codex_rollout(&env);
    let (ok, listed) = tandem(&env, &["import"]);
    assert!(ok, "{listed}");
    assert!(
        listed.starts_with("codex        2026-11-29T10:00  Create hello.txt with a greeting\n"),
        "{listed}"
    );
    let (ok, said) = tandem(&env, &["import", "--all"]);
    assert!(
        ok && said.starts_with("Imported \"Create hello.txt with a greeting\" from Codex"),
        "{said}"
    );

    let mut agent = env.spawn();
    agent.initialize().await;
    let session = load_imported(&mut agent, &env, "codex").await;
    let calls = replayed(&agent, ["execute", "edit", "execute"]);
    assert_eq!(
        calls[0]["rawInput"]["command"],
        "printf 'hello\\n' > hello.txt"
    );
    let diff = diff_of(&calls[1]);
    assert_eq!(diff["oldText"], "hello\n");
    assert_eq!(diff["newText"], "hello, world\n");
    assert!(
        calls[2]["content"].to_string().contains("hello, world"),
        "{}",
        calls[2]
    );

    mock.push(openai_text(&["It says hello, world."], "stop"));
    agent.prompt(&session, "what does it say?").await;
    let messages = mock.requests()[0].body["messages"].clone();
    assert_eq!(
        called(&messages),
        ["bash", "apply_patch", "bash"],
        "{messages}"
    );
}

#[tokio::test]
async fn opencodes_database_is_imported_with_its_tools_and_diffs() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let db = opencode_database(&env);
    let before = std::fs::read(&db).unwrap();
    let (ok, listed) = tandem(&env, &["import"]);
    assert!(ok, "{listed}");
    assert!(
        listed.starts_with("opencode     2026-11-29T10:00  I'll create the file.\n"),
        "{listed}"
    );
    let (ok, said) = tandem(&env, &["import", "--all"]);
    assert!(
        ok && said.starts_with("Imported \"I'll create the file.\" from OpenCode"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database is never changed"
    );

    let mut agent = env.spawn();
    agent.initialize().await;
    let session = load_imported(&mut agent, &env, "opencode").await;
    assert_eq!(
        agent.updates_of("user_message_chunk")[0]["content"]["text"],
        "\"Create hello.txt with a greeting\""
    );
    assert_eq!(
        agent.agent_text(),
        "I'll create the file.Done: hello.txt now says hello, world."
    );
    let calls = agent.updates_of("tool_call");
    let diff = |n: usize| diff_of(&calls[n]);
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(diff(0)["oldText"], Value::Null);
    assert_eq!(diff(0)["newText"], "hello\n");
    assert_eq!(diff(1)["oldText"], "hello\n");
    assert_eq!(diff(1)["newText"], "hello, world\n");

    mock.push(openai_text(&["It says hello, world."], "stop"));
    agent.prompt(&session, "what does it say?").await;
    let messages = mock.requests()[0].body["messages"].clone();
    assert_eq!(called(&messages), ["write", "edit", "bash"], "{messages}");
}

#[tokio::test]
async fn gemini_clis_chat_is_imported_with_its_thoughts_diffs_and_shell_and_continued() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let source = gemini_chats(&env);
    let before = std::fs::read(&source).unwrap();
    let saved = source
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("checkpoint-demo.json");
    let (ok, listed) = tandem(&env, &["import", "--list"]);
    assert!(ok, "{listed}");
    assert!(
        listed.contains("gemini-cli   2026-11-29T11:50  Create hello.txt with a greeting\n"),
        "{listed}"
    );
    assert!(
        listed.contains("  demo: Create hello.txt with a greeting\n"),
        "{listed}"
    );
    let (ok, said) = tandem(&env, &["import", source.to_str().unwrap()]);
    assert!(
        ok && said.starts_with("Imported \"Create hello.txt with a greeting\" from Gemini CLI"),
        "{said}"
    );
    let (ok, again) = tandem(&env, &["import", source.to_str().unwrap()]);
    assert!(ok && again.starts_with("Already imported:"), "{again}");
    assert_eq!(std::fs::read(&source).unwrap(), before);

    let mut agent = env.spawn();
    agent.initialize().await;
    let session = load_imported(&mut agent, &env, "gemini-cli").await;
    let user = agent.updates_of("user_message_chunk");
    assert_eq!(
        user.len(),
        1,
        "its own context is not the person's: {user:?}"
    );
    let calls = replayed(&agent, ["edit", "edit", "execute"]);
    let hello = env.project.join("hello.txt");
    assert_eq!(diff_of(&calls[0])["path"], hello.to_string_lossy().as_ref());
    assert_eq!(diff_of(&calls[0])["oldText"], Value::Null);
    assert_eq!(diff_of(&calls[0])["newText"], "hello\n");
    assert_eq!(diff_of(&calls[1])["oldText"], "hello\n");
    assert_eq!(diff_of(&calls[1])["newText"], "hello, world\n");
    assert_eq!(
        calls[1]["rawInput"],
        json!({"filePath": hello, "oldString": "hello", "newString": "hello, world"})
    );
    assert_eq!(calls[2]["rawInput"]["command"], "cat hello.txt");

    mock.push(openai_text(&["It says hello, world."], "stop"));
    agent.prompt(&session, "what does it say?").await;
    let messages = mock.requests()[0].body["messages"].clone();
    assert_eq!(called(&messages), ["write", "edit", "bash"], "{messages}");
    let shell = messages
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "tool")
        .unwrap();
    assert!(
        shell["content"]
            .as_str()
            .unwrap()
            .contains("Output: hello, world"),
        "{shell}"
    );
    // A model whose window the imported history no longer fits: compacted, and the turn goes on.
    mock.push(MockResponse::status(
        400,
        r#"{"error":{"message":"This model's maximum context length is 8000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
    ));
    mock.push(openai_text(
        &["## Goal\n- greet the world in hello.txt"],
        "stop",
    ));
    mock.push(openai_text(&["Yes."], "stop"));
    let response = agent.prompt(&session, "is it done?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    let compaction = requests[2].body.to_string();
    assert!(
        compaction.contains("anchored summary") && compaction.contains(r#""name":"bash""#),
        "{compaction}"
    );
    assert!(
        compaction.contains("hello, world") && compaction.contains("\"edit\""),
        "{compaction}"
    );
    let last = requests[3].body["messages"].as_array().unwrap();
    let texts: Vec<&str> = last[1..]
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "What have we done so far in this conversation?",
            "## Goal\n- greet the world in hello.txt",
            "is it done?"
        ]
    );
    agent.shutdown().await;

    // The chat the person saved: the API's history, its calls answered by the results after.
    let (ok, said) = tandem(&env, &["import", "--all"]);
    assert!(
        ok && said.contains("Imported \"demo: Create hello.txt with a greeting\""),
        "{said}"
    );
    assert_eq!(std::fs::read(&source).unwrap(), before);
    let mut agent = env.spawn();
    agent.initialize().await;
    let list = agent.request("session/list", json!({})).await;
    let saved_session = list["result"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == "demo: Create hello.txt with a greeting")
        .unwrap_or_else(|| panic!("{list}"))["sessionId"]
        .clone();
    agent
        .request(
            "session/load",
            json!({"sessionId": saved_session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert_eq!(
        agent.updates_of("user_message_chunk")[0]["content"]["text"],
        "Create hello.txt with a greeting"
    );
    let calls = agent.updates_of("tool_call");
    let done: Vec<&str> = calls.iter().filter_map(|c| c["status"].as_str()).collect();
    assert_eq!(done, ["completed", "completed", "completed"], "{calls:?}");
    let kinds: Vec<&str> = calls.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["edit", "edit", "execute"], "{calls:?}");
    assert!(
        calls[2].to_string().contains("Output: hello, world"),
        "{}",
        calls[2]
    );
    assert!(saved.exists());
}

#[tokio::test]
async fn tandems_own_export_comes_back_on_another_machine() {
    let here = TestEnv::new();
    claude_transcript(&here);
    let (ok, said) = tandem(&here, &["import", "--all"]);
    assert!(ok, "{said}");
    let id = said
        .trim_end()
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches('.');
    let out = here
        .command(&["sessions", "export", id, "--format", "json", "--with-tools"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let export = here.root.path().join("export.json");
    std::fs::write(&export, &out.stdout).unwrap();
    // The other machine has no such folder: the session is the project's there.
    std::fs::remove_dir_all(&here.project).unwrap();

    let mock = MockLlm::start().await;
    let there = TestEnv::new();
    there.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    for _ in 0..2 {
        let (ok, said) = tandem(&there, &["import", export.to_str().unwrap()]);
        assert!(ok, "{said}");
    }
    let mut agent = there.spawn();
    agent.initialize().await;
    let session = load_imported(&mut agent, &there, "tandem").await;
    mock.push(openai_text(&["Still hello, world."], "stop"));
    agent.prompt(&session, "and now?").await;
    let messages = mock.requests()[0].body["messages"].clone();
    let called: Vec<(String, Value)> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| {
            let call = &m["tool_calls"][0]["function"];
            let args = serde_json::from_str(call["arguments"].as_str()?).ok()?;
            Some((call["name"].as_str()?.to_owned(), args))
        })
        .collect();
    let names: Vec<&str> = called.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["write", "edit", "bash"], "{messages}");
    assert_eq!(
        called[2].1,
        json!({"command": "cat hello.txt", "description": "Show the file"})
    );
    assert_eq!(messages[7]["content"], "hello, world");
}
