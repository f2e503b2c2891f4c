//! Real agents in front of the editor when things go wrong, through the binary, on the
//! scripted model: a write they ask for under a deny rule of Tandem's is refused (Codex's, when
//! it keeps its own sandbox and asks to leave it); killed in the
//! middle of a command, the prompt says so and the next prompt goes on with them; out of their
//! usage (a 429 with a reset hours away), the session is handed to Tandem's own loop with the
//! conversation so far in its model's request (OpenCode, which waits out the reset in silence,
//! once its silence bound stops it).

use std::path::Path;

use serde_json::{Value, json};

use super::real_agents::{ScriptedModel, real_agent};
use crate::support::{AcpProcess, TestEnv};

/// One real agent in front: its name in Tandem's config, the program `.ci/install-agents`
/// installed, and its tools' names and keys in the scripted model's answers.
#[derive(Clone, Copy)]
enum Front {
    Claude,
    Codex,
    OpenCode,
}

impl Front {
    fn name(self) -> &'static str {
        match self {
            Front::Claude => "claude",
            Front::Codex => "codex",
            Front::OpenCode => "opencode",
        }
    }

    fn program(self) -> &'static str {
        match self {
            Front::Claude => "claude-agent-acp",
            Front::Codex => "codex-acp",
            Front::OpenCode => "opencode",
        }
    }

    /// A command it runs with its own tool.
    fn run(self, env: &TestEnv, line: &str) -> Value {
        match self {
            Front::Claude => {
                json!({"tool": "Bash", "input": {"command": line, "description": "Wait"}})
            }
            Front::Codex => {
                json!({"tool": "exec_command", "input": {"cmd": line, "workdir": env.project}})
            }
            Front::OpenCode => {
                json!({"tool": "bash", "input": {"command": line, "description": "Wait"}})
            }
        }
    }

    /// A file it writes with its own tool (one that asks first).
    fn write(self, path: &Path) -> Value {
        match self {
            Front::Claude => {
                json!({"tool": "Write", "input": {"file_path": path, "content": "hello\n"}})
            }
            Front::OpenCode => {
                json!({"tool": "write", "input": {"filePath": path, "content": "hello\n"}})
            }
            Front::Codex => unreachable!("Codex in front asks nothing (agent-full-access)"),
        }
    }

    /// Sets it up in `env` on the scripted model at `url`, with `tandems` as Tandem's config
    /// (its agent block added): it asks Tandem before its writes, and does not retry a refusal
    /// of its provider.
    fn set_up(self, env: &TestEnv, program: &Path, url: &str, tandems: Value) {
        self.set_up_with(env, (program, url), tandems, json!({}));
    }

    /// `set_up`, with `acp` keys added to its block.
    fn set_up_with(
        self,
        env: &TestEnv,
        (program, url): (&Path, &str),
        mut tandems: Value,
        acp: Value,
    ) {
        let home = env.root.path();
        let (command, agent_env) = match self {
            Front::Claude => {
                std::fs::create_dir_all(home.join(".claude")).unwrap();
                let settings = json!({"permissions": {"defaultMode": "default"}});
                std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
                let agent_env = json!({"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-test",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1",
                    "CLAUDE_CODE_MAX_RETRIES": "0"});
                (json!([program]), agent_env)
            }
            Front::Codex => {
                std::fs::create_dir_all(home.join(".codex")).unwrap();
                let config = format!(
                    "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
                     name = \"mock\"\nbase_url = \"{url}/v1\"\nwire_api = \"responses\"\n\
                     env_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n"
                );
                std::fs::write(home.join(".codex/config.toml"), config).unwrap();
                (json!([program]), json!({"MOCK_API_KEY": "sk-test"}))
            }
            Front::OpenCode => {
                let config = json!({"model": "anthropic/claude-sonnet-4-5", "share": "disabled",
                    "autoupdate": false, "permission": {"edit": "ask"},
                    "provider": {"anthropic": {"options": {"baseURL": format!("{url}/v1"),
                        "apiKey": "sk-test", "maxRetries": 0}}}});
                std::fs::write(env.project.join("opencode.json"), config.to_string()).unwrap();
                (
                    json!([program, "acp"]),
                    json!({"OPENCODE_DISABLE_AUTOUPDATE": "1"}),
                )
            }
        };
        let mut block = json!({"command": command, "env": agent_env, "startup_timeout": 120});
        for (key, value) in acp.as_object().unwrap() {
            block[key] = value.clone();
        }
        tandems["agent"][self.name()] = json!({"mode": "primary", "acp": block});
        env.write_project_config(&tandems);
    }

    /// `tandem acp --agent NAME` with a session open, the person allowing what is asked.
    async fn start(self, env: &TestEnv) -> (AcpProcess, String) {
        let mut agent = env.spawn_acp(&["--agent", self.name()], &[]);
        agent.permission_choice = Some("allow_once".into());
        agent.initialize().await;
        let session = agent.new_session(&env.project).await;
        (agent, session)
    }
}

/// The child of `parent` whose command line holds `name`.
fn child_named(parent: u32, name: &str) -> Option<u32> {
    let entries = std::fs::read_dir("/proc").ok()?;
    entries.flatten().find_map(|entry| {
        let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        let after_name = stat.rsplit_once(')')?.1;
        let ppid: u32 = after_name.split_whitespace().nth(1)?.parse().ok()?;
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        (ppid == parent && String::from_utf8_lossy(&cmdline).contains(name)).then_some(pid)
    })
}

/// Whether the agent's `tail -f <wait>` runs on the machine.
fn waiting(wait: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    let line = format!("tail\0-f\0{}\0", wait.display());
    entries.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline")).is_ok_and(|l| l == line.as_bytes())
    })
}

/// The words the agent said since update `before`.
fn said_since(agent: &AcpProcess, before: usize) -> String {
    (agent.updates[before..].iter())
        .filter(|u| u["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|u| u["update"]["content"]["text"].as_str())
        .collect()
}

/// The script: a write (when `write` is given) refused, then on "Wait now" a command that
/// waits on `wait`, and on "Go on" an answer.
fn waiting_script(front: Front, env: &TestEnv, write: Option<&Path>, wait: &Path) -> Value {
    let mut first = vec![json!({"text": "Writing it."})];
    first.extend(write.map(|path| front.write(path)));
    let line = format!("timeout 60 tail -f {}", wait.display());
    json!({"steps": [first, [{"text": "Not written."}]], "when": {
        "Wait now": [front.run(env, &line)],
        "Go on": [{"text": "Back again."}]
    }})
}

/// `front` killed while its command runs: the prompt fails saying so, and the next prompt
/// starts it again and goes on. With `hello`, first its write there under `edit: deny` is
/// refused.
async fn killed_mid_turn_goes_on(front: Front, hello: Option<&str>) {
    let Some(program) = real_agent(front.program()) else {
        return;
    };
    let env = TestEnv::new();
    let hello = hello.map(|name| env.project.join(name));
    let wait = env.project.join("wait.log");
    std::fs::write(&wait, "").unwrap();
    let script = waiting_script(front, &env, hello.as_deref(), &wait);
    let model = ScriptedModel::start(&script, env.root.path());
    let rules = json!({"permission": {"edit": "deny", "bash": "allow"}});
    front.set_up(&env, &program, &model.url, rules);
    let (mut agent, session) = front.start(&env).await;
    if let Some(hello) = &hello {
        agent.prompt(&session, "Write hello.txt").await;
        assert!(!hello.exists(), "the deny rule held its own write");
        let calls = agent.updates_of("tool_call_update");
        let refused = calls.iter().find(|u| u["status"] == "failed");
        assert!(refused.is_some(), "its write failed: {calls:#?}");
    }
    let id = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "Wait now"}]}),
        )
        .await;
    let waited = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while !waiting(&wait) {
            let pause = std::time::Duration::from_millis(200);
            let _ = tokio::time::timeout(pause, agent.next_message()).await;
        }
    });
    waited
        .await
        .unwrap_or_else(|_| panic!("{:#?}", agent.updates));
    let pid = child_named(agent.child.id().unwrap(), front.program()).expect("its process");
    let killed = std::process::Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    assert!(killed.success());
    let failed = agent.response(id).await;
    let error = failed["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("before it finished"), "{failed}");

    let before = agent.updates.len();
    let again = agent.prompt(&session, "Go on").await;
    assert_eq!(again["result"]["stopReason"], "end_turn", "{again}");
    let said = said_since(&agent, before);
    assert!(said.ends_with("Back again."), "{said}");
    agent.shutdown().await;
    drop(model);
}

/// `front` refused by its provider with a 429 and a reset five hours away: the person is
/// offered Tandem's own loop, takes it, and Tandem's model gets the conversation so far.
async fn handed_over_at_a_usage_limit(front: Front) {
    let Some(program) = real_agent(front.program()) else {
        return;
    };
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    let limit = "You have hit your usage limit. It resets in 5 hours.";
    let script = json!({"steps": [[{"text": "Nothing to do."}]], "when": {
        "Say hi": [{"text": "Hi there."}],
        "Now more": [{"error": 429, "message": limit, "retry_after": 18000}]
    }});
    let model = ScriptedModel::start(&script, env.root.path());
    // OpenCode waits out the reset itself, saying nothing: its silence bound ends the wait.
    let acp = match front {
        Front::OpenCode => json!({"silence_timeout": 8}),
        _ => json!({}),
    };
    let tandems = TestEnv::mock_config(&mock.url, "openai");
    front.set_up_with(&env, (&program, &model.url), tandems, acp);
    let (mut agent, session) = front.start(&env).await;
    let first = agent.prompt(&session, "Say hi").await;
    assert_eq!(first["result"]["stopReason"], "end_turn", "{first}");
    mock.push(crate::support::mock_llm::openai_text(
        &["Carrying on here."],
        "stop",
    ));
    let response = agent.prompt(&session, "Now more").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let asked = agent.permission_requests();
    let offer = (asked.iter())
        .find(|r| r.to_string().contains("handover-"))
        .unwrap_or_else(|| panic!("{asked:#?}\n{:#?}", agent.updates));
    let title = offer["params"]["toolCall"]["title"].as_str().unwrap();
    assert!(
        title.starts_with(&format!("The agent `{}` stopped: ", front.name())),
        "{title}"
    );
    let modes = agent.updates_of("current_mode_update");
    assert_eq!(modes.last().unwrap()["currentModeId"], "build");
    assert!(agent.agent_text().ends_with("Carrying on here."));
    let request = mock.requests()[0].body["messages"].to_string();
    for said in ["Say hi", "Hi there.", "Now more"] {
        assert!(request.contains(said), "{said}: {request}");
    }
    agent.shutdown().await;
    drop(model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_under_a_deny_rule_and_killed_mid_turn_is_held_and_goes_on() {
    killed_mid_turn_goes_on(Front::Claude, Some("hello.txt")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_under_a_deny_rule_and_killed_mid_turn_is_held_and_goes_on() {
    killed_mid_turn_goes_on(Front::OpenCode, Some("hello.txt")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_killed_mid_turn_goes_on() {
    killed_mid_turn_goes_on(Front::Codex, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_out_of_its_usage_is_handed_to_tandems_loop_with_the_conversation() {
    handed_over_at_a_usage_limit(Front::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_out_of_its_usage_is_handed_to_tandems_loop_with_the_conversation() {
    handed_over_at_a_usage_limit(Front::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_out_of_its_usage_is_handed_to_tandems_loop_with_the_conversation() {
    handed_over_at_a_usage_limit(Front::OpenCode).await;
}

/// Codex with its own sandbox (Tandem's is off for the session, and Codex is in its
/// `workspace-write` mode) asks before a command that must leave that sandbox; Tandem answers
/// under `rule`. Whether the command's write outside landed.
async fn codex_escalation_under(rule: &str) -> bool {
    let program = real_agent(Front::Codex.program()).expect("installed");
    let env = TestEnv::new();
    let outside = env.root.path().join("outside.txt");
    let line = format!("printf hi > {}", outside.display());
    let script = json!({"steps": [
        [{"tool": "exec_command", "input": {"cmd": line, "workdir": env.project,
            "sandbox_permissions": "require_escalated", "justification": "Write outside"}}],
        [{"text": "Done."}]
    ]});
    let model = ScriptedModel::start(&script, env.root.path());
    let tandems = json!({"permission": {"bash": rule}, "sandbox": {"mode": "off"}});
    let acp = json!({"mode": "workspace-write"});
    Front::Codex.set_up_with(&env, (&program, &model.url), tandems, acp);
    let (mut agent, session) = Front::Codex.start(&env).await;
    agent.prompt(&session, "Write outside").await;
    agent.shutdown().await;
    drop(model);
    outside.exists()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_with_its_own_sandbox_asks_and_tandems_deny_rule_refuses() {
    if real_agent(Front::Codex.program()).is_none() {
        return;
    }
    assert!(
        !codex_escalation_under("deny").await,
        "Tandem's deny rule refused Codex's request"
    );
    assert!(
        codex_escalation_under("allow").await,
        "allowed, the same request runs"
    );
}
