//! Real agents in front of the editor, through the binary, on the scripted model
//! (scripts/fixtures/scripted_model.py) on 127.0.0.1: Claude Code's ACP adapter, Codex's,
//! OpenCode and Gemini CLI, installed from npm by `.ci/install-agents`, each run as the
//! session's agent; the turn shows each call once, the agent's own write outside the workspace
//! is refused by Tandem's sandbox (in the agent's own words), `/undo` takes back what it wrote,
//! and its own options and commands are offered beside Tandem's.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use serde_json::{Value, json};

use crate::support::TestEnv;

/// The adapter `program` that `.ci/install-agents` installed; None (the test skipped) only
/// when interop tests may be skipped.
pub(crate) fn real_agent(program: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".ci/cache/agents/node_modules/.bin")
        .join(program);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("TANDEM_SKIP_INTEROP").is_some(),
        "{} is missing: run `bash .ci/install-agents` (or set TANDEM_SKIP_INTEROP=1)",
        path.display()
    );
    None
}

/// The scripted model, serving `script` on a port of its own until dropped.
pub(crate) struct ScriptedModel {
    child: Child,
    pub url: String,
}

impl ScriptedModel {
    pub fn start(script: &Value, dir: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let file = dir.join("script.json");
        std::fs::write(&file, script.to_string()).unwrap();
        let model =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fixtures/scripted_model.py");
        let child = Command::new("python3")
            .arg(model)
            .arg(port.to_string())
            .arg(&file)
            .arg("--log")
            .arg(dir.join("model.log"))
            .spawn()
            .expect("python3 runs the scripted model");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The script every agent follows, in its own tools' names (`write`, `edit`, `bash`) and
/// input keys (`file_path` or `filePath`): write hello.txt, write outside the workspace, edit
/// hello.txt, show it, answer.
fn script(names: [&str; 3], keys: [&str; 3], hello: &Path, outside: &Path) -> Value {
    let [write, edit, bash] = names;
    let [path, old, new] = keys;
    json!({"title": "Greeting", "steps": [
        [{"text": "I'll create the file."},
         {"tool": write, "input": {path: hello, "content": "hello\n"}}],
        [{"tool": write, "input": {path: outside, "content": "escaped\n"}}],
        [{"tool": edit, "input": {path: hello, old: "hello", new: "hello, world"}}],
        [{"tool": bash, "input": {"command": "cat hello.txt", "description": "Show it"}}],
        [{"text": "Done."}]
    ]})
}

/// `agent` (configured in `env`) in front: the scripted turn shows each call once, the write
/// outside fails with the sandbox's refusal, hello.txt is written, and `/undo` takes it back.
async fn held_turn(
    env: &TestEnv,
    agent_name: &str,
    (hello, outside): (&Path, &Path),
    told_model: Option<&Path>,
) {
    let mut agent = env.spawn_acp(&["--agent", agent_name], &[]);
    // What Tandem cannot see into (OpenCode's question about a folder outside) it puts to the
    // person, who allows it here: the sandbox still refuses the write.
    agent.permission_choice = Some("allow_once".into());
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent
        .prompt(&session, "Create hello.txt with a greeting")
        .await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(std::fs::read_to_string(hello).unwrap(), "hello, world\n");
    assert!(
        !outside.exists(),
        "the sandbox refuses the agent's own write outside"
    );
    let text = agent.agent_text();
    assert_eq!(text.matches("I'll create the file.").count(), 1, "{text}");
    assert_eq!(text.matches("Done.").count(), 1, "{text}");
    let calls = agent.updates_of("tool_call");
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["toolCallId"].as_str().unwrap())
        .collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(ids.len(), 4, "each call shown once: {calls:#?}");
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    // The outside write is refused, with the operating system's refusal in the agent's own
    // words (`EACCES`, `PermissionDenied`, a shell's "Permission denied"), and no other call
    // failed (Gemini CLI's shell call completes, telling the failure in its output).
    let updates = agent.updates_of("tool_call_update");
    let failed: Vec<&Value> = updates.iter().filter(|u| u["status"] == "failed").collect();
    assert!(
        failed.iter().all(|u| u["toolCallId"] == ids[1]),
        "{updates:#?}"
    );
    // Where the agent shows its calls' output (Gemini CLI shows none), the refusal is read
    // there; else in what it told its model.
    let outside_call: String = match told_model {
        None => (updates.iter())
            .filter(|u| u["toolCallId"] == ids[1])
            .map(|u| u.to_string())
            .collect(),
        Some(log) => std::fs::read_to_string(log).unwrap(),
    };
    let refusal = outside_call.to_lowercase().replace(' ', "");
    assert!(
        refusal.contains("eacces") || refusal.contains("permissiondenied"),
        "{outside_call}"
    );
    // Gemini CLI offers its modes alone; the others their models too.
    let chosen = if agent_name == "gemini" {
        "mode"
    } else {
        "model"
    };
    offered_beside_tandems(&mut agent, &session, (agent_name, chosen)).await;
    agent.prompt(&session, "/undo").await;
    assert!(!hello.exists(), "/undo takes back the agent's own writes");
    agent.shutdown().await;
}

/// The agent's own model selector (`chosen`: or its mode's) is offered beside Tandem's mode
/// and approval level, and takes another of its values; its commands are offered beside Tandem's (under
/// `<agent>:<name>` where Tandem's own take the name).
async fn offered_beside_tandems(
    agent: &mut crate::support::AcpProcess,
    session: &str,
    (name, chosen): (&str, &str),
) {
    let model_id = format!("{name}:{chosen}");
    let options = agent.updates_of("config_option_update");
    let options = options
        .last()
        .expect("the options, told when the agent started");
    let listed = options["configOptions"].as_array().unwrap();
    let ids: Vec<&str> = listed.iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert!(ids.starts_with(&["mode", "approval"]), "{ids:?}");
    let model = listed.iter().find(|o| o["id"] == model_id.as_str());
    let model = model.unwrap_or_else(|| panic!("{model_id} among {ids:?}"));
    let category = if chosen == "model" {
        "model"
    } else {
        "_agent_mode"
    };
    assert_eq!(model["category"], category, "{model}");
    let other = (model["options"].as_array().unwrap().iter())
        .map(|v| v["value"].clone())
        .rfind(|v| *v != model["currentValue"])
        .expect("another model");
    let chose = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": model_id, "value": other}),
        )
        .await;
    let now = (chose["result"]["configOptions"].as_array())
        .and_then(|all| all.iter().find(|o| o["id"] == model_id.as_str()).cloned());
    assert_eq!(
        now.map(|o| o["currentValue"].clone()),
        Some(other),
        "{chose}"
    );
    let commands = agent.updates_of("available_commands_update");
    let names: Vec<&str> = (commands.last().unwrap()["availableCommands"]
        .as_array()
        .unwrap())
    .iter()
    .map(|c| c["name"].as_str().unwrap())
    .collect();
    assert!(names.contains(&"undo"), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with(&format!("{name}:"))),
        "{names:?}"
    );
}

/// Tandem's rules let every call through: what stops the outside write is the sandbox.
fn allow_everything(agents: Value) -> Value {
    json!({"agent": agents, "permission": {"edit": "allow", "bash": "allow", "external_directory": "allow"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_in_front_is_held_by_tandems_sandbox_and_undo() {
    let Some(adapter) = real_agent("claude-agent-acp") else {
        return;
    };
    let env = TestEnv::new();
    let hello = env.project.join("hello.txt");
    let outside = env.root.path().join("outside.txt");
    let keys = ["file_path", "old_string", "new_string"];
    let script = script(["Write", "Edit", "Bash"], keys, &hello, &outside);
    let model = ScriptedModel::start(&script, env.root.path());
    // Claude Code asks before each write and command (its permission requests are Tandem's to
    // answer), rather than judging them with a classifier of its own.
    let claude = env.root.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("settings.json"),
        json!({"permissions": {"defaultMode": "default"}}).to_string(),
    )
    .unwrap();
    env.write_project_config(&allow_everything(
        json!({"claude": {"mode": "primary", "acp": {
        "command": [adapter],
        "env": {"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-test",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1"},
        "startup_timeout": 120}}}),
    ));
    held_turn(&env, "claude", (&hello, &outside), None).await;
    drop(model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_in_front_is_held_by_tandems_sandbox_and_undo() {
    let Some(opencode) = real_agent("opencode") else {
        return;
    };
    let env = TestEnv::new();
    let hello = env.project.join("hello.txt");
    let outside = env.root.path().join("outside.txt");
    let keys = ["filePath", "oldString", "newString"];
    let script = script(["write", "edit", "bash"], keys, &hello, &outside);
    let model = ScriptedModel::start(&script, env.root.path());
    // OpenCode's own config: its model is the scripted one.
    std::fs::write(
        env.project.join("opencode.json"),
        json!({"model": "anthropic/claude-sonnet-4-5", "share": "disabled", "autoupdate": false,
            "provider": {"anthropic": {"options": {"baseURL": format!("{}/v1", model.url), "apiKey": "sk-test"}}}})
        .to_string(),
    )
    .unwrap();
    env.write_project_config(&allow_everything(
        json!({"opencode": {"mode": "primary", "acp": {
        "command": [opencode, "acp"],
        "env": {"OPENCODE_DISABLE_AUTOUPDATE": "1"},
        "startup_timeout": 120}}}),
    ));
    held_turn(&env, "opencode", (&hello, &outside), None).await;
    drop(model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_in_front_is_held_by_tandems_sandbox_and_undo() {
    let Some(codex) = real_agent("codex-acp") else {
        return;
    };
    let env = TestEnv::new();
    let hello = env.project.join("hello.txt");
    let outside = env.root.path().join("outside.txt");
    let exec = |line: String| json!({"tool": "exec_command", "input": {"cmd": line, "workdir": env.project}});
    let script = json!({"title": "Greeting", "steps": [
        [{"text": "I'll create the file."}, exec("printf 'hello\\n' > hello.txt".into())],
        [exec(format!("printf 'escaped\\n' > {}", outside.display()))],
        [{"custom": "apply_patch", "input": "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello, world\n*** End Patch\n"}],
        [exec("cat hello.txt".into())],
        [{"text": "Done."}]
    ]});
    let model = ScriptedModel::start(&script, env.root.path());
    // Codex's own config: its model is the scripted one, on the Responses API.
    let home = env.root.path().join(".codex");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"mock\"\n\
             base_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n",
            model.url
        ),
    )
    .unwrap();
    env.write_project_config(&allow_everything(
        json!({"codex": {"mode": "primary", "acp": {
        "command": [codex],
        "env": {"MOCK_API_KEY": "sk-test"},
        "startup_timeout": 120}}}),
    ));
    held_turn(&env, "codex", (&hello, &outside), None).await;
    drop(model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_in_front_is_held_by_tandems_sandbox_and_undo() {
    let Some(gemini) = real_agent("gemini") else {
        return;
    };
    let env = TestEnv::new();
    let hello = env.project.join("hello.txt");
    let outside = env.root.path().join("outside.txt");
    // Gemini CLI keeps its own file tools inside the workspace, so the write outside is a
    // command of its shell (which only the sandbox holds); its `replace` takes an instruction.
    let shell = |line: String| json!({"tool": "run_shell_command", "input": {"command": line}});
    let script = json!({"title": "Greeting", "steps": [
        [{"text": "I'll create the file."},
         {"tool": "write_file", "input": {"file_path": hello, "content": "hello\n"}}],
        [shell(format!("printf 'escaped\\n' > {}", outside.display()))],
        [{"tool": "replace", "input": {"file_path": hello, "old_string": "hello",
            "new_string": "hello, world", "instruction": "Greet the world"}}],
        [shell("cat hello.txt".into())],
        [{"text": "Done."}]
    ]});
    let model = ScriptedModel::start(&script, env.root.path());
    // Gemini CLI's own settings: a key (the scripted model's), nothing sent home.
    let home = env.root.path().join(".gemini");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("settings.json"),
        json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
               "privacy": {"usageStatisticsEnabled": false},
               "telemetry": {"enabled": false}})
        .to_string(),
    )
    .unwrap();
    env.write_project_config(&allow_everything(
        json!({"gemini": {"mode": "primary", "acp": {
        "command": [gemini, "--acp"],
        "env": {"GEMINI_API_KEY": "sk-test", "GOOGLE_GEMINI_BASE_URL": model.url,
                "GEMINI_CLI_TRUST_WORKSPACE": "true"},
        "startup_timeout": 120}}}),
    ));
    let log = env.root.path().join("model.log");
    held_turn(&env, "gemini", (&hello, &outside), Some(&log)).await;
    drop(model);
}
