//! Claude Code plugins through the binary: a plugin installed for Claude Code (listed in
//! `~/.claude/plugins/installed_plugins.json`, its manifest in `.claude-plugin/plugin.json`)
//! brings its skill and its command (`/<plugin>:<command>`, with Claude Code's
//! `argument-hint`) to every session; one its settings turn off brings nothing.

use serde_json::{Value, json};

use crate::support::mock_llm::openai_text;
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
