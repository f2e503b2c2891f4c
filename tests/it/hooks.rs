//! Hooks through the binary, written as small shell scripts: `PreToolUse` blocking with exit 2,
//! denying in JSON, allowing, rewriting (a rewrite into a denied command still denied);
//! `PostToolUse` adding context; a hook that hangs and one that crashes; `UserPromptSubmit`,
//! `SessionStart`, `Stop`, `Notification`, `PreCompact` and `SessionEnd`; a project's hooks run only once
//! trusted with the folder, by content; Claude Code's `.claude/settings.json` working unchanged.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::mock_llm::{MockLlm, openai_text, openai_tool_calls};

/// Writes `body` as a shell script under `dir` and returns the hook's command line.
fn script(dir: &Path, name: &str, body: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    format!("sh {}", path.display())
}

/// What the model was told of each call in request `n`, by call id.
fn results(mock: &MockLlm, n: usize) -> Vec<(String, String)> {
    mock.requests()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn result_of(results: &[(String, String)], id: &str) -> String {
    results
        .iter()
        .find(|(call, _)| call == id)
        .map(|(_, text)| text.clone())
        .unwrap_or_else(|| panic!("no result for {id}: {results:?}"))
}

/// The user messages' texts in request `n`.
fn user_texts(mock: &MockLlm, n: usize) -> Vec<String> {
    mock.requests()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            parts => parts
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        })
        .collect()
}

#[tokio::test]
async fn tool_hooks_block_deny_allow_and_rewrite_under_the_rules() {
    let (mock, env, mut agent, _) = crate::support::start_with(
        "openai",
        json!({"permission": {"bash": {"*": "ask", "echo *": "allow", "curl *": "deny"}}}),
    )
    .await;
    let hooks = env.root.path().join("hooks");
    let guard = script(
        &hooks,
        "guard.sh",
        r#"input=$(cat)
case "$input" in
  *'"command":"rm '*) echo "rm is not allowed here; move files to trash/ instead" >&2; exit 2;;
  *'"command":"git push'*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no pushing from the agent"}}';;
  *'"command":"echo old'*) printf '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo new"}}}';;
  *'"command":"echo sneaky'*) printf '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"curl http://127.0.0.1:9/x"}}}';;
  *'"command":"ls'*) printf '{"hookSpecificOutput":{"permissionDecision":"allow"}}';;
  *'"command":"echo ask-me'*) printf '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"echoes are reviewed"}}';;
esac
exit 0"#,
    );
    let post = script(
        &hooks,
        "post.sh",
        r#"printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"post-check: ok"}}'"#,
    );
    let notified = env.project.join("notified.json");
    // Tandem's data folder: never writable from the sandbox.
    let (confined, free) = (env.data.join("confined.txt"), env.data.join("free.txt"));
    let notify = script(
        &hooks,
        "notify.sh",
        &format!("cat > {}", notified.display()),
    );
    env.write_global_config(
        &json!({"hooks": {
            "PreToolUse": [
                {"matcher": "bash", "hooks": [{"type": "command", "command": guard}]},
                {"matcher": "read", "hooks": [
                    {"type": "command", "command": "sleep 30", "timeout": 1},
                    {"type": "command", "command": "kill -SEGV $$"},
                    // Sandboxed unless the hook says otherwise: only the second may write
                    // outside the project.
                    {"type": "command", "command": format!("echo x > {} || exit 1", confined.display())},
                    {"type": "command", "command": format!("echo x > {}", free.display()), "sandbox": false}
                ]}
            ],
            "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": post}]}],
            "Notification": [{"hooks": [{"type": "command", "command": notify}]}]
        }})
        .to_string(),
    );
    agent.permission_choice = Some("allow_once".into());
    let session = agent.new_session(&env.project).await;
    mock.push(openai_tool_calls(&[
        (
            "c1",
            "bash",
            r#"{"command":"rm -rf src","description":"remove"}"#,
        ),
        (
            "c2",
            "bash",
            r#"{"command":"git push origin main","description":"push"}"#,
        ),
        (
            "c3",
            "bash",
            r#"{"command":"echo old","description":"say"}"#,
        ),
        (
            "c4",
            "bash",
            r#"{"command":"echo sneaky","description":"say"}"#,
        ),
        ("c5", "bash", r#"{"command":"ls","description":"list"}"#),
        (
            "c6",
            "bash",
            r#"{"command":"touch made","description":"make"}"#,
        ),
        ("c7", "read", r#"{"filePath":"README.md"}"#),
        (
            "c8",
            "bash",
            r#"{"command":"echo ask-me","description":"say"}"#,
        ),
    ]));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "go").await;

    let told = results(&mock, 1);
    assert_eq!(
        result_of(&told, "c1"),
        "A PreToolUse hook blocked this call: rm is not allowed here; move files to trash/ instead"
    );
    assert!(
        env.project.join("src").is_dir(),
        "the blocked rm did not run"
    );
    assert_eq!(
        result_of(&told, "c2"),
        "A PreToolUse hook blocked this call: no pushing from the agent"
    );
    let c3 = result_of(&told, "c3");
    assert!(
        c3.starts_with(&format!(
            "The PreToolUse hook `{guard}` changed this call's input to {{\"command\":\"echo new\",\"description\":\"say\"}}.\n\nnew\n"
        )),
        "{c3}"
    );
    assert!(
        c3.ends_with("<hook event=\"PostToolUse\">\npost-check: ok\n</hook>"),
        "{c3}"
    );
    // The hook's allow never outweighs a deny rule: the rewrite meets the rules again.
    assert!(
        result_of(&told, "c4")
            .contains("The user's permission rules deny bash `curl http://127.0.0.1:9/x`"),
        "{told:?}"
    );
    assert!(result_of(&told, "c5").contains("README.md"), "{told:?}");
    // `touch` asked under its rule, and `echo ask-me` because a hook asked, though the rules
    // allow it; the hook's allow answered the ask rule for `ls`.
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 2, "{asked:#?}");
    let title = |n: usize| {
        asked[n]["params"]["toolCall"]["title"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(title(0).contains("touch made"), "{}", title(0));
    assert_eq!(
        title(1),
        "echo ask-me\n(A hook asks about this call: echoes are reviewed)"
    );
    assert!(result_of(&told, "c8").contains("ask-me"), "{told:?}");
    assert!(
        !confined.exists(),
        "a sandboxed hook wrote outside the project"
    );
    assert!(free.exists());
    assert!(env.project.join("made").exists());
    let notice: Value = serde_json::from_str(&std::fs::read_to_string(&notified).unwrap()).unwrap();
    assert_eq!(notice["hook_event_name"], "Notification");
    assert_eq!(notice["session_id"], session.as_str());
    assert!(
        notice["message"].as_str().unwrap().contains("touch made"),
        "{notice}"
    );
    // The hanging hook was stopped and the crashing one reported; the read still ran.
    assert!(result_of(&told, "c7").contains("# demo"), "{told:?}");
    let text = agent.agent_text();
    assert!(
        text.contains("The PreToolUse hook `sleep 30` ran over 1 s and was stopped"),
        "{text}"
    );
    assert!(
        text.contains("The PreToolUse hook `kill -SEGV $$` crashed"),
        "{text}"
    );

    // The editor sees the rewrite and the stored input is the one that ran.
    let c3_updates = crate::support::call_updates(&agent, "c3");
    let last = c3_updates.last().unwrap();
    assert_eq!(last["rawInput"]["command"], "echo new", "{last}");
    let shown = last["content"].to_string();
    assert!(shown.contains("changed this call's input"), "{shown}");
}

#[tokio::test]
async fn prompt_start_stop_and_end_hooks_add_context_block_and_send_back() {
    let (mock, env, mut agent, _) = crate::support::start_with("openai", json!({})).await;
    let hooks = env.root.path().join("hooks");
    let prompt = script(
        &hooks,
        "prompt.sh",
        r#"input=$(cat)
case "$input" in
  *secret*) echo "no secrets in prompts" >&2; exit 2;;
esac
echo "The sprint ends Friday.""#,
    );
    let stop = script(
        &hooks,
        "stop.sh",
        r#"input=$(cat)
case "$input" in
  *'"stop_hook_active":false'*) printf '{"decision":"block","reason":"run the tests first"}';;
esac
exit 0"#,
    );
    let ended = env.project.join("ended.json");
    let end = script(&hooks, "end.sh", &format!("cat > {}", ended.display()));
    let compacted = env.project.join("compact.json");
    let compact = script(
        &hooks,
        "compact.sh",
        &format!("cat > {}", compacted.display()),
    );
    env.write_global_config(
        &json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": prompt}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo Session began here."}]}],
            "Stop": [{"hooks": [{"type": "command", "command": stop}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": end}]}],
            "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": compact}]}]
        }})
        .to_string(),
    );
    let session = agent.new_session(&env.project).await;
    mock.push(openai_text(&["done"], "stop"));
    mock.push(openai_text(&["tests pass"], "stop"));
    let answer = agent.prompt(&session, "fix it").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");

    let first = user_texts(&mock, 0);
    assert_eq!(first.len(), 1);
    assert!(
        first[0].contains("fix it")
            && first[0].contains("<hook-context>\nSession began here.\n</hook-context>")
            && first[0].contains("<hook-context>\nThe sprint ends Friday.\n</hook-context>"),
        "{first:?}"
    );
    // The Stop hook sent the agent back once, with its reason; the second end stood.
    assert_eq!(mock.requests().len(), 2);
    let second = user_texts(&mock, 1);
    assert!(
        second
            .last()
            .unwrap()
            .contains("A Stop hook asks you to go on before ending: run the tests first"),
        "{second:?}"
    );

    // A blocked prompt never reaches the model and is not kept; the person reads why.
    let answer = agent.prompt(&session, "here is my secret").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), 2);
    assert!(
        agent
            .agent_text()
            .contains("A UserPromptSubmit hook blocked this prompt: no secrets in prompts")
    );
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let kept: i64 = conn
        .query_row(
            "SELECT count(*) FROM part WHERE data LIKE '%my secret%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, 0);

    // PreCompact runs before `/compact` condenses the conversation.
    mock.push(openai_text(&["## Goal\n- fix it"], "stop"));
    agent.prompt(&session, "/compact").await;
    let compact: Value =
        serde_json::from_str(&std::fs::read_to_string(&compacted).unwrap()).unwrap();
    assert_eq!(compact["hook_event_name"], "PreCompact");
    assert_eq!(compact["trigger"], "manual");

    // SessionEnd runs as Tandem exits.
    agent.shutdown().await;
    let end: Value = serde_json::from_str(&std::fs::read_to_string(&ended).unwrap()).unwrap();
    assert_eq!(end["hook_event_name"], "SessionEnd");
    assert_eq!(end["reason"], "exit");
}

#[tokio::test]
async fn a_projects_hooks_run_only_in_a_trusted_folder_and_ask_again_when_changed() {
    let mock = MockLlm::start().await;
    let env = crate::support::acp::TestEnv::new();
    let write_config = |message: &str| {
        let mut config = crate::support::acp::TestEnv::mock_config(&mock.url, "openai");
        config["hooks"] = json!({"PreToolUse": [{"matcher": "bash", "hooks": [
            {"type": "command", "command": format!("echo '{message}' >&2; exit 2")}
        ]}]});
        env.write_untrusted_config(&config);
    };
    write_config("the project says no");
    // Claude Code's own settings file, unchanged: its names and its spelling of inputs.
    std::fs::create_dir_all(env.project.join(".claude")).unwrap();
    std::fs::write(
        env.project.join(".claude/settings.json"),
        json!({"hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": "true"}]}],
            "PreToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command",
            "command": "python3 -c \"import json,sys; d=json.load(sys.stdin); p=d['tool_input']['file_path']; sys.exit(0) if d['tool_name']!='Write' or not p.endswith('.lock') else (print('lock files are generated: '+p, file=sys.stderr), sys.exit(2))\""}]}]},
            "permissions": {"allow": []}})
        .to_string(),
    )
    .unwrap();

    let run = |answer: &'static str| {
        let env = &env;
        let mock = &mock;
        async move {
            let mut agent = env.spawn();
            agent.permission_choice = Some(answer.into());
            agent.initialize().await;
            let session = agent.new_session(&env.project).await;
            mock.push(openai_tool_calls(&[
                (
                    "b1",
                    "bash",
                    r#"{"command":"echo ran","description":"say"}"#,
                ),
                ("w1", "write", r#"{"filePath":"deps.lock","content":"x"}"#),
            ]));
            mock.push(openai_text(&["ok"], "stop"));
            agent.prompt(&session, "go").await;
            let asked = agent.trust_questions();
            let told = results(mock, mock.requests().len() - 1);
            agent.shutdown().await;
            (asked, told)
        }
    };

    // First: the folder is asked about, with every hook's command listed; "always" keeps it.
    let (asked, told) = run("allow_always").await;
    assert_eq!(asked.len(), 1, "{asked:#?}");
    let title = asked[0]["params"]["toolCall"]["title"].as_str().unwrap();
    assert!(
        title.contains(
            "hook PreToolUse [bash]: echo 'the project says no' >&2; exit 2 (tandem.json)"
        ),
        "{title}"
    );
    assert!(
        title.contains("hook PreToolUse [Write|Edit|MultiEdit]: python3 -c"),
        "{title}"
    );
    assert_eq!(
        result_of(&told, "b1"),
        "A PreToolUse hook blocked this call: the project says no"
    );
    let lock = env.project.join("deps.lock");
    assert_eq!(
        result_of(&told, "w1"),
        format!(
            "A PreToolUse hook blocked this call: lock files are generated: {}",
            lock.display()
        )
    );
    assert!(!lock.exists());

    // The same hooks in a new process: not asked again.
    let (asked, told) = run("reject_once").await;
    assert!(asked.is_empty(), "{asked:#?}");
    assert_eq!(
        result_of(&told, "b1"),
        "A PreToolUse hook blocked this call: the project says no"
    );

    // Changed: asked again; refused, they do not run.
    write_config("changed");
    let (asked, told) = run("reject_once").await;
    assert_eq!(asked.len(), 1);
    assert!(result_of(&told, "b1").contains("ran"), "{told:?}");

    // `config check` lists them, whose each is, and what was skipped.
    let output = env.command(&["config", "check"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("\nHooks:\n  PreToolUse [bash] (tandem.json): echo 'changed' >&2; exit 2, the project's\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  ! hooks in {}: `PermissionRequest` is not an event Tandem has; its hooks are skipped",
            env.project.join(".claude/settings.json").display()
        )),
        "{out}"
    );
}

#[tokio::test]
async fn tandem_run_asks_at_the_terminal_and_refuses_without_one() {
    use crate::support::pty::Pty;
    let mock = MockLlm::start().await;
    let env = crate::support::acp::TestEnv::new();
    let mut config = crate::support::acp::TestEnv::mock_config(&mock.url, "openai");
    config["hooks"] = json!({"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo hooked > hooked.txt"}
    ]}]});
    env.write_untrusted_config(&config);
    let marker = env.project.join("hooked.txt");

    mock.push(openai_text(&["Done."], "stop"));
    let command = env.command(&["run", "--approve", "say hello"]);
    let output = tokio::task::spawn_blocking(move || {
        let mut command = command;
        command.stdin(std::process::Stdio::null()).output().unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("this folder is not trusted, so nothing it brings runs"),
        "{stderr}"
    );
    assert!(!marker.exists(), "--approve never trusts a folder");

    mock.push(openai_text(&["Done."], "stop"));
    let command = env.command(&["run", "say hello"]);
    let shown = tokio::task::spawn_blocking(move || {
        let mut pty = Pty::spawn(command);
        pty.expect("? trust wants permission: Trust this folder?");
        pty.expect("hook UserPromptSubmit: echo hooked > hooked.txt (tandem.json)");
        pty.type_text("a\r");
        let status = pty.wait();
        (status, pty.output())
    })
    .await
    .unwrap();
    assert!(shown.0.success(), "{}", shown.1);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "hooked\n");
}
