//! Claude Code plugins through the binary: a plugin installed for Claude Code (listed in
//! `~/.claude/plugins/installed_plugins.json`, its manifest in `.claude-plugin/plugin.json`)
//! brings its skill and its command (`/<plugin>:<command>`, with Claude Code's
//! `argument-hint`) to every session; one its settings turn off brings nothing.

use serde_json::{Value, json};

use crate::support::mock_llm::{openai_text, openai_tool_calls};
use crate::support::{MockLlm, TestEnv};

/// Installs the plugin `greeter` (and a turned-off `silent`) for Claude Code under `env`.
fn install(env: &TestEnv) {
    let claude = env.root.path().join(".claude");
    let mut plugins = serde_json::Map::new();
    for name in ["greeter", "silent"] {
        let root = claude.join(format!("plugins/cache/market/{name}/1.0.0"));
        std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            json!({"name": name, "version": "1.0.0"}).to_string(),
        )
        .unwrap();
        let skill = root.join(format!("skills/{name}-wave"));
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: {name}-wave\ndescription: Waves at the person\n---\nWave.\n"),
        )
        .unwrap();
        std::fs::create_dir_all(root.join("commands")).unwrap();
        std::fs::write(
            root.join("commands/hello.md"),
            "---\ndescription: Say hello\nargument-hint: whom\nmodel: claude-haiku-4-5\n---\nSay hello to $ARGUMENTS.\n",
        )
        .unwrap();
        plugins.insert(
            format!("{name}@market"),
            json!([{"scope": "user", "installPath": root, "version": "1.0.0"}]),
        );
    }
    std::fs::write(
        claude.join("plugins/installed_plugins.json"),
        json!({"version": 2, "plugins": plugins}).to_string(),
    )
    .unwrap();
    std::fs::write(
        claude.join("settings.json"),
        json!({"enabledPlugins": {"greeter@market": true, "silent@market": false}}).to_string(),
    )
    .unwrap();
}

#[tokio::test]
async fn an_installed_plugin_brings_its_skill_and_its_command() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    install(&env);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let offered = agent
        .wait_for_update(|u| u["update"]["sessionUpdate"] == "available_commands_update")
        .await;
    let commands = offered["update"]["availableCommands"].as_array().unwrap();
    let find = |name: &str| commands.iter().find(|c| c["name"] == name).cloned();
    let hello = find("greeter:hello").expect("the plugin's command");
    assert_eq!(hello["description"], "Say hello");
    assert_eq!(hello["input"]["hint"], "whom");
    assert!(
        find("greeter-wave").is_some(),
        "the plugin's skill: {commands:?}"
    );
    assert!(find("silent:hello").is_none() && find("silent-wave").is_none());

    mock.push(openai_text(&["Hello, Ada!"], "stop"));
    agent.prompt(&session, "/greeter:hello Ada").await;
    let request = &mock.requests()[0].body;
    assert_eq!(
        request["model"], "test-model",
        "a bare model id is left to the session's"
    );
    let messages = request["messages"].as_array().unwrap();
    let last: &Value = messages.last().unwrap();
    assert!(
        last["content"].to_string().contains("Say hello to Ada."),
        "{last}"
    );
    let tools = request["tools"].to_string();
    assert!(
        tools.contains("greeter-wave"),
        "the skill tool offers it: {tools}"
    );
}

/// Installs the plugin `kit` for Claude Code under `env`, beside `install`'s: a skill, a
/// Claude Code agent, a command, a `PreToolUse` hook running its own script, and an MCP server
/// started through its own wrapper, both named by `${CLAUDE_PLUGIN_ROOT}`. Returns its folder.
fn install_kit(env: &TestEnv) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let claude = env.root.path().join(".claude");
    let root = claude.join("plugins/cache/market/kit/2.0.0");
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write(
        ".claude-plugin/plugin.json",
        &json!({"name": "kit"}).to_string(),
    );
    write(
        "skills/kit-notes/SKILL.md",
        "---\nname: kit-notes\ndescription: Takes notes\n---\nNote it.\n",
    );
    write(
        "agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: sonnet\npermissionMode: bypassPermissions\nhooks:\n  Stop: []\n---\nYou review diffs.\n",
    );
    write(
        "commands/review.md",
        "---\ndescription: Review the change\n---\nReview it.\n",
    );
    write(
        "hooks/hooks.json",
        &json!({"description": "guards", "hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh\""}]}]}})
        .to_string(),
    );
    write(
        "hooks/guard.sh",
        "#!/bin/sh\necho 'kit says no' >&2\nexit 2\n",
    );
    let server = crate::support::example_path("mcp_test_server");
    write(
        "bin/db",
        &format!("#!/bin/sh\nexec '{}' \"$@\"\n", server.display()),
    );
    write(
        ".mcp.json",
        &json!({"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "args": []}}})
            .to_string(),
    );
    let list_path = claude.join("plugins/installed_plugins.json");
    let mut list: Value =
        serde_json::from_str(&std::fs::read_to_string(&list_path).unwrap()).unwrap();
    list["plugins"]["kit@market"] =
        json!([{"scope": "user", "installPath": root, "version": "2.0.0"}]);
    std::fs::write(&list_path, list.to_string()).unwrap();
    std::fs::canonicalize(root).unwrap()
}

/// The names of the tools a request offered.
fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The titles of the trust questions a process was asked.
fn trust_questions(agent: &crate::support::AcpProcess) -> Vec<String> {
    (agent.trust_questions().iter())
        .map(|r| {
            r["params"]["toolCall"]["title"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_plugins_agent_runs_as_a_subagent_and_its_hook_and_server_wait_for_trust() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    install(&env);
    let root = install_kit(&env);

    // Trusted when asked ("always"): the hook blocks `bash`, the server's tool answers, and
    // the plugin's agent runs as a subagent under its own prompt and tools.
    let mut agent = env.spawn();
    agent.permission_choice = Some("allow_always".into());
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_tool_calls(&[
        (
            "b1",
            "bash",
            r#"{"command":"echo ran","description":"say"}"#,
        ),
        ("m1", "plugin_kit_db_echo", r#"{"text":"hi"}"#),
        (
            "t1",
            "task",
            r#"{"description":"review","prompt":"Review the diff","subagent_type":"kit:reviewer"}"#,
        ),
    ]));
    mock.push(openai_text(&["Looks fine."], "stop"));
    mock.push(openai_text(&["Done."], "stop"));
    agent.prompt(&session, "go").await;
    let asked = trust_questions(&agent);
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert_eq!(
        asked[0],
        format!(
            "Trust the Claude Code plugin `kit`? It would have Tandem start these programs; until \
             you trust it, none of them runs:\n  MCP server db: {root}/bin/db (.mcp.json)\n  hook \
             PreToolUse [Bash]: \"${{CLAUDE_PLUGIN_ROOT}}/hooks/guard.sh\" (hooks/hooks.json)\n\
             Plugin folder: {root}",
            root = root.display()
        )
    );
    let requests = mock.requests();
    let first = &requests[0].body;
    let offered = tool_names(first);
    assert!(
        offered.contains(&"plugin_kit_db_echo".to_owned()),
        "{offered:?}"
    );
    let task = first["tools"].to_string();
    assert!(
        task.contains("kit:reviewer") && task.contains("Reviews diffs"),
        "{task}"
    );
    let child = &requests[1].body;
    assert!(
        child["messages"][0]["content"]
            .to_string()
            .contains("You review diffs."),
        "{}",
        child["messages"][0]
    );
    let child_tools = tool_names(child);
    for denied in ["bash", "edit", "write", "webfetch", "task"] {
        assert!(!child_tools.contains(&denied.to_owned()), "{child_tools:?}");
    }
    assert!(child_tools.contains(&"read".to_owned()) && child_tools.contains(&"grep".to_owned()));
    let last = requests.last().unwrap().body["messages"].to_string();
    assert!(
        last.contains("A PreToolUse hook blocked this call: kit says no"),
        "{last}"
    );
    assert!(last.contains("echo: hi"), "{last}");
    assert!(last.contains("Looks fine."), "{last}");
    agent.shutdown().await;

    // `config check` lists each plugin, what it brought, and the one skipped.
    let output = env.command(&["config", "check"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    let expected = format!(
        "\nClaude Code plugins:\n  greeter (greeter@market, yours): starts no programs\n    skills: \
         greeter-wave\n    commands: /greeter:hello\n  kit (kit@market, yours): trusted: its hooks \
         and MCP servers run\n    skills: kit-notes\n    commands: /kit:review\n    agents: \
         kit:reviewer\n    MCP server db: {}/bin/db (.mcp.json)\n    hook PreToolUse [Bash]: \
         \"${{CLAUDE_PLUGIN_ROOT}}/hooks/guard.sh\" (hooks/hooks.json)\n  - silent@market: \
         skipped, turned off in {}\n",
        root.display(),
        env.root.path().join(".claude/settings.json").display()
    );
    assert!(out.contains(&expected), "{out}");

    // The hook's script changed: asked again; refused, neither the hook nor the server runs.
    std::fs::write(root.join("hooks/guard.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    let mut agent = env.spawn();
    agent.permission_choice = Some("reject_once".into());
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_text(&["Nothing to do."], "stop"));
    agent.prompt(&session, "again").await;
    let asked = trust_questions(&agent);
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert!(asked[0].starts_with("The Claude Code plugin `kit` changed since you last answered."));
    let offered = tool_names(&mock.requests().last().unwrap().body);
    assert!(
        !offered.iter().any(|t| t.starts_with("plugin_kit")),
        "{offered:?}"
    );
    agent.shutdown().await;
}
