//! API keys through the real binary: `tandem auth login` typed into a pseudo-terminal (no
//! echo, mode 0600, never in output, logs or the store), `auth list|logout`, the terminal auth
//! method `tandem acp --login`, ACP's `authenticate`, and a stored key reaching the provider.

use std::os::unix::fs::PermissionsExt as _;

use crate::support::TestEnv;
use crate::support::pty::Pty;
use serde_json::json;

const KEY: &str = "sk-typed-9f3a51c0";

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in walk(dir) {
        if std::fs::read(&entry)
            .map(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
            .unwrap_or(false)
        {
            found.push(entry.display().to_string());
        }
    }
    found
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn login_in_terminal(env: &TestEnv, args: &[&str], provider_answer: Option<&str>) -> String {
    let log = env.root.path().join("tandem.log");
    let mut command = env.command(args);
    command
        .env("TANDEM_LOG_FILE", &log)
        .env("TANDEM_LOG", "debug");
    let mut pty = Pty::spawn(command);
    if let Some(answer) = provider_answer {
        pty.expect(
            "Provider (openai, anthropic, openrouter, google, deepseek, groq, mistral, xai, \
             togetherai, fireworks-ai, cerebras, azure) [openai]: ",
        );
        pty.type_text(&format!("{answer}\r"));
    }
    pty.expect("(not shown): ");
    pty.type_text(&format!("{KEY}\r"));
    let status = pty.wait();
    let output = pty.output();
    assert!(status.success(), "{output}");
    assert!(!output.contains(KEY), "the key was echoed: {output:?}");
    assert!(output.contains("Stored the key for"), "{output}");
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!log.contains(KEY), "the key was logged");
    output
}

#[test]
fn auth_login_reads_the_key_without_echo_and_stores_it_for_the_owner_alone() {
    let env = TestEnv::new();
    login_in_terminal(&env, &["auth", "login", "openai"], None);
    let file = env.data.join("auth.json");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let stored: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(stored, json!({"openai": {"type": "api", "key": KEY}}));
    // Only the key file holds the key.
    assert_eq!(
        files_containing(env.root.path(), KEY),
        [file.display().to_string()]
    );

    let list = env.command(&["auth", "list"]).output().unwrap();
    let listed = String::from_utf8(list.stdout).unwrap();
    assert!(!listed.contains(KEY), "{listed}");
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("openai") && l.contains("key stored in")),
        "{listed}"
    );
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("anthropic") && l.ends_with("no key")),
        "{listed}"
    );

    let logout = env.command(&["auth", "logout", "openai"]).output().unwrap();
    assert!(logout.status.success());
    assert!(String::from_utf8_lossy(&logout.stderr).contains("Forgot the stored key for openai"));
    assert!(files_containing(env.root.path(), KEY).is_empty());
}

#[test]
fn the_terminal_auth_method_asks_for_the_provider_then_the_key() {
    let env = TestEnv::new();
    // What an editor runs for ACP's terminal auth method: the agent command plus its args.
    login_in_terminal(&env, &["acp", "--login"], Some("anthropic"));
    let stored: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.data.join("auth.json")).unwrap()).unwrap();
    assert_eq!(stored["anthropic"]["key"], KEY);
}

#[test]
fn a_piped_key_is_stored_and_an_empty_one_refused() {
    let env = TestEnv::new();
    let run = |input: &str| {
        use std::io::Write as _;
        let mut child = env
            .command(&["auth", "login", "openrouter"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let empty = run("\n");
    assert!(!empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no key given"));
    assert!(!env.data.join("auth.json").exists());
    let piped = run(&format!("{KEY}\n"));
    assert!(piped.status.success());
    assert!(piped.stdout.is_empty());
    assert!(!String::from_utf8_lossy(&piped.stderr).contains(KEY));
}

#[tokio::test]
async fn the_editor_is_offered_both_methods_and_a_stored_key_reaches_the_provider() {
    let mock = crate::support::MockLlm::start().await;
    mock.push(crate::support::mock_llm::responses_text(None, &["Hello"]));
    let env = TestEnv::new();
    let mut agent = env.spawn_with(&[("OPENAI_BASE_URL", &mock.url)]);
    let init = agent
        .initialize_with(
            json!({"fs": {"readTextFile": false, "writeTextFile": false},
                                "terminal": false, "auth": {"terminal": true}}),
        )
        .await;
    let methods = &init["result"]["authMethods"];
    assert_eq!(methods[0]["id"], "env");
    assert_eq!(
        methods[1],
        json!({"type": "terminal", "id": "login", "name": "Log in with an API key",
               "description": "Asks for a provider and its key in a terminal and stores the key readable by you alone.",
               "args": ["--login"]})
    );
    // Nothing stored and nothing in the environment: both methods say so.
    for method in ["env", "login"] {
        let answer = agent
            .request("authenticate", json!({"methodId": method}))
            .await;
        assert_eq!(answer["error"]["code"], -32000, "{answer}");
    }
    let unknown = agent
        .request("authenticate", json!({"methodId": "oauth"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // The person logs in from a terminal while the editor is connected.
    let mut command = env.command(&["auth", "login", "openai"]);
    command.env("TANDEM_LOG", "off");
    let mut pty = Pty::spawn(command);
    pty.expect("(not shown): ");
    pty.type_text(&format!("{KEY}\r"));
    assert!(pty.wait().success());

    let answer = agent
        .request("authenticate", json!({"methodId": "login"}))
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    let session = agent.new_session(&env.project).await;
    let response = agent.prompt(&session, "hi").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    assert_eq!(
        requests[0].headers["authorization"].to_str().unwrap(),
        format!("Bearer {KEY}")
    );
    let picked = tandem::provider::catalog::defaults::for_provider(
        "openai",
        &tandem::provider::catalog::today(),
    )
    .unwrap();
    assert_eq!(requests[0].body["model"], picked.flagship);
    // The store never holds the key.
    assert!(
        files_containing(&env.data, KEY)
            .iter()
            .all(|f| f.ends_with("auth.json"))
    );
}

#[tokio::test]
async fn logout_forgets_the_stored_keys_and_new_sessions_need_a_key_again() {
    let env = TestEnv::new();
    let piped = {
        use std::io::Write as _;
        let mut child = env
            .command(&["auth", "login", "openai"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(format!("{KEY}\n").as_bytes()).unwrap();
        drop(stdin);
        child.wait().unwrap()
    };
    assert!(piped.success());
    let mut agent = env.spawn();
    let init = agent.initialize().await;
    assert_eq!(
        init["result"]["agentCapabilities"]["auth"],
        json!({"logout": {}})
    );
    let answer = agent
        .request("authenticate", json!({"methodId": "login"}))
        .await;
    assert_eq!(answer["result"], json!({}), "{answer}");
    let out = agent.request("logout", json!({})).await;
    assert_eq!(out["result"], json!({}), "{out}");
    assert!(
        files_containing(&env.data, KEY).is_empty(),
        "the key is gone"
    );
    let answer = agent
        .request("authenticate", json!({"methodId": "login"}))
        .await;
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
}
