//! The protocol surface through the real binary: initialize, malformed input, unknown
//! sessions, missing credentials, and stdout carrying nothing but JSON-RPC.

use crate::support::TestEnv;
use serde_json::json;

#[tokio::test]
async fn initialize_advertises_exactly_what_works() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    let response = agent.initialize().await;
    assert_eq!(
        response["result"],
        json!({
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": true,
                "promptCapabilities": {"image": true, "audio": false, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": false},
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "fork": {}, "delete": {},
                                        "additionalDirectories": {}, "systemPrompt": {},
                                        "status": {}, "title": {}},
                "auth": {"logout": {}},
            },
            "authMethods": [{
                "id": "env",
                "name": "API key in the environment",
                "description": "Set OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY, GROQ_API_KEY, MISTRAL_API_KEY, XAI_API_KEY, TOGETHER_API_KEY, FIREWORKS_API_KEY, CEREBRAS_API_KEY, AZURE_API_KEY in the environment the editor starts `tandem acp` with (or a provider's options.apiKey in tandem.json), then restart the agent.",
            }],
            "agentInfo": {"name": "tandem", "title": "Tandem", "version": env!("CARGO_PKG_VERSION")},
            "_meta": {"steering": {"supported": true},
                      "sessionRewind": {"supported": true, "files": true, "dryRun": true}},
        })
    );
    // initialize opens nothing: no database until a session is needed.
    assert!(!env.db_path().exists());
    assert!(agent.shutdown().await.success());
}

#[tokio::test]
async fn malformed_json_gets_a_parse_error_and_the_process_keeps_serving() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    agent
        .send_raw("{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": ")
        .await;
    let error = agent.next_message().await;
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert_eq!(error["id"], json!(null));
    // Well-formed JSON with the wrong params is invalid params, and a relative cwd is refused.
    let response = agent
        .request("session/new", json!({"mcpServers": []}))
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let response = agent
        .request(
            "session/new",
            json!({"cwd": "relative/dir", "mcpServers": []}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not an absolute path")
    );
    // Still serving.
    let session = agent.new_session(&env.project).await;
    assert_eq!(session.len(), 26, "a ULID session id: {session}");
}

#[tokio::test]
async fn unknown_session_ids_get_resource_not_found() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    let missing = "01JZZZZZZZZZZZZZZZZZZZZZZZ";
    for (method, params) in [
        (
            "session/prompt",
            json!({"sessionId": missing, "prompt": [{"type": "text", "text": "hi"}]}),
        ),
        (
            "session/load",
            json!({"sessionId": missing, "cwd": env.project, "mcpServers": []}),
        ),
        (
            "session/resume",
            json!({"sessionId": missing, "cwd": env.project}),
        ),
        ("session/close", json!({"sessionId": missing})),
    ] {
        let response = agent.request(method, params).await;
        assert_eq!(response["error"]["code"], -32002, "{method}: {response}");
        assert_eq!(
            response["error"]["data"],
            json!({"sessionId": missing}),
            "{method}"
        );
    }
}

#[tokio::test]
async fn without_credentials_new_answers_and_prompt_asks_for_a_key() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent.prompt(&session, "hello").await;
    assert_eq!(response["error"]["code"], -32000, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(message.contains("OPENAI_API_KEY"), "{message}");
    assert!(message.contains("ANTHROPIC_API_KEY"), "{message}");
    assert!(
        message.contains(&env.config_dir.join("tandem.json").display().to_string()),
        "names the config file: {message}"
    );
    // The error names the auth methods the editor can offer.
    assert_eq!(
        response["error"]["data"]["authMethods"],
        json!(["env", "login"]),
        "{response}"
    );
    // The person's words are kept even though no model answered.
    let conn = rusqlite::Connection::open(env.db_path()).unwrap();
    let parts: Vec<String> = conn
        .prepare("SELECT data FROM part WHERE session_id = ?1")
        .unwrap()
        .query_map([&session], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(parts, [r#"{"type":"text","text":"hello"}"#]);
}

#[tokio::test]
async fn an_openai_key_alone_gives_a_working_default_model() {
    let mock = crate::support::MockLlm::start().await;
    mock.push(crate::support::mock_llm::responses_text(None, &["Hi"]));
    mock.set_title(Some("Greeting"));
    let env = TestEnv::new();
    let mut agent = env.spawn_with(&[("OPENAI_API_KEY", "sk-env"), ("OPENAI_BASE_URL", &mock.url)]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent.prompt(&session, "hello").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    // The catalog's rule picks the model, and its reasoning family speaks the Responses API.
    let picked = tandem::provider::catalog::defaults::for_provider(
        "openai",
        &tandem::provider::catalog::today(),
    )
    .unwrap();
    let request = &mock.requests()[0];
    assert_eq!(request.body["model"], picked.flagship);
    assert_eq!(request.path, "/v1/responses");
    assert_eq!(request.headers["authorization"], "Bearer sk-env");
    // The title is written by the provider's small model.
    let small = picked.small.unwrap();
    assert_ne!(small, picked.flagship);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while mock.title_requests().is_empty() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(mock.title_requests()[0].body["model"], small);
}

#[tokio::test]
async fn config_type_errors_name_the_file_key_and_expectation() {
    let env = TestEnv::new();
    env.write_global_config(
        r#"{ // my settings
        "provider": {"local": {"api": "grpc"}} }"#,
    );
    let mut agent = env.spawn();
    agent.initialize().await;
    let response = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    let message = response["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains(&env.config_dir.join("tandem.json").display().to_string()),
        "{response}"
    );
    assert!(message.contains("provider.local.api"), "{message}");
    assert!(
        message.contains("expected one of `openai`, `anthropic`, `responses`, `scripted`"),
        "{message}"
    );
}

#[tokio::test]
async fn warnings_go_to_the_log_file_and_stderr_stays_quiet_while_serving_acp() {
    let env = TestEnv::new();
    env.write_project_config(&json!({"modle": "x/y", "provider": {}}));
    let expected = format!(
        "config file {}: unknown key `modle` ignored",
        env.project.join("tandem.json").display()
    );
    // With a log file set, and with none (the data dir's tandem.log).
    let chosen = env.root.path().join("chosen.log");
    for (extra, log) in [
        (
            vec![("TANDEM_LOG_FILE", chosen.to_str().unwrap())],
            chosen.clone(),
        ),
        (vec![], env.data.join("tandem.log")),
    ] {
        let mut agent = env.spawn_with(&extra);
        agent.initialize().await;
        agent.new_session(&env.project).await;
        // The agent is still serving: the warning did not stop it.
        let listed = agent.request("session/list", json!({})).await;
        assert!(listed["result"]["sessions"].is_array(), "{listed}");
        agent.shutdown().await;
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            logged.contains(&expected),
            "log file {}: {logged}",
            log.display()
        );
        assert!(!logged.contains('\x1b'), "no colour codes in a file");
    }
    // Editors show stderr as errors: a warning is not one.
    let mut agent = env.spawn();
    agent.initialize().await;
    agent.new_session(&env.project).await;
    let stderr = agent.stderr.clone();
    agent.shutdown().await;
    let stderr = stderr.lock().unwrap().clone();
    assert!(!stderr.contains("unknown key"), "stderr: {stderr}");
}

#[tokio::test]
async fn config_layers_global_then_project_then_tandem_config() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    // Global: the provider and a model; project: another model; TANDEM_CONFIG: a third.
    let mut global = TestEnv::mock_config(&mock.url, "openai");
    global["model"] = json!("mock/global-model");
    env.write_global_config(&global.to_string());
    env.write_project_config(&json!({"model": "mock/project-model"}));
    let extra = env.root.path().join("extra.json");
    std::fs::write(&extra, r#"{"model": "mock/extra-model"}"#).unwrap();

    for (extra_config, expected) in [(None, "project-model"), (Some(&extra), "extra-model")] {
        mock.push(crate::support::mock_llm::openai_text(&["ok"], "stop"));
        let mut vars = Vec::new();
        if let Some(path) = extra_config {
            vars.push(("TANDEM_CONFIG", path.to_str().unwrap()));
        }
        let mut agent = env.spawn_with(&vars);
        agent.initialize().await;
        let session = agent.new_session(&env.project).await;
        let response = agent.prompt(&session, "hi").await;
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        assert_eq!(mock.requests().last().unwrap().body["model"], expected);
    }

    // A missing TANDEM_CONFIG file is an error that names it, not a silent default.
    let mut agent = env.spawn_with(&[("TANDEM_CONFIG", "/nonexistent/tandem.json")]);
    agent.initialize().await;
    let response = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("/nonexistent/tandem.json"), "{response}");
}
