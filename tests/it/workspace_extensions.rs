//! Another workspace root's own agents, slash commands, custom tools and hooks, through the
//! binary: a trusted root brings all four (its tool and hook run in that root), an untrusted
//! one brings only what cannot start a program, and the project's own win over a root's.

use serde_json::{Value, json};

use crate::support::TestEnv;
use crate::support::mock_llm::{MockLlm, openai_text, openai_tool_calls};

/// A root that brings an agent, a command, a tool and a hook, all named after `name`.
fn root_with_everything(env: &TestEnv, name: &str) -> std::path::PathBuf {
    let root = env.root.path().join(name);
    for dir in [
        ".tandem/agent",
        ".tandem/command",
        ".tandem/tool",
        ".claude",
    ] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    let write = |path: &str, text: String| std::fs::write(root.join(path), text).unwrap();
    write(
        &format!(".tandem/agent/{name}-mode.md"),
        format!(
            "---\ndescription: Works the {name} way\nmode: primary\n---\nYou work in {name}.\n"
        ),
    );
    write(
        &format!(".tandem/command/{name}-hello.md"),
        format!("---\ndescription: Greets from {name}\n---\nSay hello from {name}.\n"),
    );
    write(
        &format!(".tandem/tool/{name}_where.json"),
        json!({"description": "Says where it runs.", "command": ["pwd"]}).to_string(),
    );
    let hook = json!({"type": "command", "command": "pwd > hook-ran-here.txt"});
    write(
        ".claude/settings.json",
        json!({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}).to_string(),
    );
    std::fs::canonicalize(root).unwrap()
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item[key].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn a_trusted_roots_agents_commands_tools_and_hooks_load_and_an_untrusted_roots_programs_do_not()
 {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"lib_where": "allow", "vendor_where": "allow"});
    env.write_project_config(&config);
    let lib = root_with_everything(&env, "lib");
    let vendor = root_with_everything(&env, "vendor");
    let trusted = env
        .command(&["trust", lib.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(trusted.status.success(), "{trusted:?}");
    let mut agent = env.spawn();
    agent.permission_choice = Some("reject_once".into());
    agent.initialize().await;
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": [lib, vendor]}),
        )
        .await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    let modes = names(&opened["result"]["modes"]["availableModes"], "id");
    // An agent file only narrows in an untrusted folder: both roots' modes are there.
    assert!(
        modes.contains(&"lib-mode".to_owned()) && modes.contains(&"vendor-mode".to_owned()),
        "{modes:?}"
    );
    mock.push(openai_tool_calls(&[
        ("c1", "lib_where", "{}"),
        ("c2", "vendor_where", "{}"),
    ]));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "where are you").await;

    let commands = agent.updates_of("available_commands_update");
    let listed = names(&commands.last().unwrap()["availableCommands"], "name");
    assert!(
        listed.contains(&"lib-hello".to_owned()) && listed.contains(&"vendor-hello".to_owned()),
        "{listed:?}"
    );
    let requests = mock.requests();
    let offered = names(
        &Value::Array(
            requests[0].body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["function"].clone())
                .collect(),
        ),
        "name",
    );
    assert!(offered.contains(&"lib_where".to_owned()), "{offered:?}");
    assert!(!offered.contains(&"vendor_where".to_owned()), "{offered:?}");
    let told: Vec<&Value> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(told[0]["content"], format!("{}\n", lib.display()));
    assert!(
        told[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("There is no tool named `vendor_where` here."),
        "{told:?}"
    );
    // The trusted root's hook ran in that root; the untrusted one's did not run at all.
    assert_eq!(
        std::fs::read_to_string(lib.join("hook-ran-here.txt")).unwrap(),
        format!("{}\n", lib.display())
    );
    assert!(!vendor.join("hook-ran-here.txt").exists());
    let asked: Vec<String> = agent
        .permission_requests()
        .iter()
        .map(|r| {
            r["params"]["toolCall"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].starts_with("Trust this folder?")
            && asked[0].ends_with(&format!("Folder: {}", vendor.display())),
        "{asked:?}"
    );
}

#[tokio::test]
async fn the_projects_own_command_wins_over_a_roots_of_the_same_name() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let lib = root_with_everything(&env, "lib");
    std::fs::create_dir_all(env.project.join(".tandem/command")).unwrap();
    std::fs::write(
        env.project.join(".tandem/command/lib-hello.md"),
        "---\ndescription: The project's own greeting\n---\nSay hello from the project.\n",
    )
    .unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": [lib]}),
        )
        .await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    mock.push(openai_text(&["hello"], "stop"));
    agent.prompt(&session, "/lib-hello").await;
    let sent = &mock.requests()[0].body["messages"];
    let last = sent.as_array().unwrap().last().unwrap();
    assert!(
        last["content"]
            .to_string()
            .contains("Say hello from the project."),
        "{last}"
    );
}
