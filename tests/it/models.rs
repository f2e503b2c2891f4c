//! `tandem models`: the project's models with context size, output limit and prices, the
//! default marked, and a model that cannot be used said so with the reason.

use crate::support::TestEnv;
use serde_json::json;

fn models(env: &TestEnv, args: &[&str]) -> String {
    let out = env.command(&[&["models"], args].concat()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn lists_models_with_windows_prices_and_problems() {
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config("http://127.0.0.1:9", "openai");
    // The default names a provider nobody configured.
    config["model"] = json!("ghost/model");
    env.write_project_config(&config);
    let text = models(&env, &[]);
    let lines: Vec<&str> = text.lines().collect();
    // The catalog's date and sources come first.
    let catalog = tandem::provider::catalog::catalog();
    assert_eq!(
        lines[0],
        format!(
            "Model catalog of {} ({}); `tandem models --refresh` fetches the current one.",
            catalog.generated, catalog.source
        )
    );
    assert!(catalog.source.contains("litellm"), "{}", catalog.source);
    assert_eq!(
        lines[1],
        "mock/test-model  Test Model  context 100,000, output 4,096, $1.00 in / $2.00 out per million tokens"
    );
    let ghost = lines
        .iter()
        .find(|l| l.starts_with("ghost/model (default)"))
        .unwrap();
    assert!(
        ghost.contains("not usable:") && ghost.contains("ghost"),
        "{ghost}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("scripted/demo  Scripted demo (no network)")),
        "{text}"
    );

    let listed: serde_json::Value = serde_json::from_str(&models(&env, &["--json"])).unwrap();
    assert_eq!(listed[0]["id"], "mock/test-model");
    assert_eq!(listed[0]["context"], 100000);
    assert_eq!(listed[0]["cost"]["output"], 2.0);
    let ghost = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "ghost/model")
        .unwrap();
    assert_eq!(
        (ghost["usable"].clone(), ghost["default"].clone()),
        (json!(false), json!(true))
    );
}

#[test]
fn a_key_brings_the_catalogs_models_and_providers_without_one_say_how() {
    let env = TestEnv::new();
    let mut command = env.command(&["models"]);
    let out = command.env("GROQ_API_KEY", "gsk-test").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // Groq's models come from the built-in catalog, windows and prices included.
    let llama = text
        .lines()
        .find(|l| l.starts_with("groq/llama-3.3-70b-versatile  "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(llama.contains("context 131,072"), "{llama}");
    let openai = text
        .lines()
        .find(|l| l.starts_with("openai/*"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        openai
            .ends_with("not usable: no key: set OPENAI_API_KEY or run `tandem auth login openai`"),
        "{openai}"
    );
    assert!(!text.contains("groq/*"), "{text}");
}

#[test]
fn refresh_fetches_a_newer_catalog_and_keeps_it() {
    let env = TestEnv::new();
    // models.dev's shape, from a server on 127.0.0.1.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/api.json", listener.local_addr().unwrap());
    let body = json!({"openai": {"models": {"gpt-9": {"name": "GPT-9", "tool_call": true,
        "reasoning": true, "limit": {"context": 2000000, "output": 100000},
        "cost": {"input": 3, "output": 12}}}}})
    .to_string();
    let server = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 4096];
        let _ = stream.read(&mut request);
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(reply.as_bytes()).unwrap();
    });
    let mut command = env.command(&["models", "--refresh"]);
    let out = command
        .env("TANDEM_CATALOG_URL", &url)
        .env("OPENAI_API_KEY", "sk-test")
        .output()
        .unwrap();
    server.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("fetched 1 models from {url}")),
        "{stderr}"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The fetched catalog is newer, so it is the one in use, and its newest model is now the
    // OpenAI key's default: the rule moved with the catalog, no build needed.
    assert!(
        text.starts_with(&format!(
            "Model catalog of {} ({url});",
            &tandem::provider::catalog::today()
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "openai/gpt-9 (default)  GPT-9  context 2,000,000, output 100,000, $3.00 in / $12.00 out"
        ),
        "{text}"
    );
    // Kept: the next run (offline) uses it too.
    let mut command = env.command(&["models", "--json"]);
    let out = command.env("OPENAI_API_KEY", "sk-test").output().unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "openai/gpt-9" && r["context"] == 2_000_000)
    );
}

#[tokio::test]
async fn the_catalogs_window_sizes_a_model_with_no_config() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    // Groq by name: only its address moved to the mock; the model itself is not configured.
    env.write_project_config(&json!({
        "model": "groq/llama-3.1-8b-instant",
        "provider": {"groq": {"options": {"baseURL": mock.url, "apiKey": "gsk-test"}}}
    }));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(crate::support::mock_llm::openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hi").await;
    let usage = agent.updates_of("usage_update");
    assert_eq!(usage.last().unwrap()["size"], 131_072, "{usage:?}");
    assert_eq!(mock.requests()[0].body["model"], "llama-3.1-8b-instant");
}

#[tokio::test]
async fn a_model_that_cannot_take_the_turn_is_told_before_any_request() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&json!({
        "model": "groq/llama-guard-3-8b",
        "provider": {"groq": {"options": {"baseURL": mock.url, "apiKey": "gsk-test"}}}
    }));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let refused = agent.prompt(&session, "hi").await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        message.starts_with("The model groq/llama-guard-3-8b (Llama Guard 3 8B) cannot call tools"),
        "{refused}"
    );
    // A model that reads no images, sent one.
    agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model",
                   "value": "groq/deepseek-r1-distill-llama-70b"}),
        )
        .await;
    let image = agent
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [
                {"type": "text", "text": "what is this?"},
                {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]}),
        )
        .await;
    assert!(
        image["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("does not read images"),
        "{image}"
    );
    assert!(mock.requests().is_empty(), "nothing reached the provider");
}

#[tokio::test]
async fn azure_openai_takes_a_deployment_an_api_version_and_an_api_key_header() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    // The mock stands in for https://<resource>.openai.azure.com/openai.
    let base = mock.url.trim_end_matches("/v1").to_owned() + "/openai";
    env.write_project_config(&json!({
        "model": "azure/gpt-4.1",
        "provider": {"azure": {"options": {"baseURL": base, "apiVersion": "2025-01-01-preview"}}}
    }));
    let mut agent = env.spawn_with(&[("AZURE_API_KEY", "az-key")]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(crate::support::mock_llm::openai_text(&["ok"], "stop"));
    let answer = agent.prompt(&session, "hi").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
    let request = &mock.requests()[0];
    assert_eq!(request.path, "/openai/deployments/gpt-4.1/chat/completions");
    assert_eq!(request.query, "api-version=2025-01-01-preview");
    assert_eq!(request.headers["api-key"], "az-key");
    assert!(request.headers.get("authorization").is_none());
    // The deployment runs OpenAI's gpt-4.1: the catalog knows its window.
    let usage = agent.updates_of("usage_update");
    assert_eq!(usage.last().unwrap()["size"], 1_047_576, "{usage:?}");
}

/// Every model id Tandem names (in its code outside tests, the README, the docs and the editor
/// snippets) is in the built-in catalog, so a stale id cannot ship.
#[test]
fn every_model_id_tandem_names_is_in_the_catalog() {
    use tandem::provider::catalog;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<(String, String)> = Vec::new();
    for dir in ["src", "docs", "editors"] {
        for entry in ignore::WalkBuilder::new(root.join(dir))
            .hidden(false)
            .build()
        {
            let entry = entry.unwrap();
            let path = entry.path();
            let wanted = path.extension().is_some_and(|e| {
                [
                    "rs", "md", "json", "el", "lua", "toml", "kt", "xml", "ts", "js",
                ]
                .contains(&e.to_str().unwrap_or_default())
            });
            if !entry.file_type().is_some_and(|t| t.is_file()) || !wanted {
                continue;
            }
            let text = std::fs::read_to_string(path).unwrap_or_default();
            // A source file's own tests may name made-up models; the code before them may not.
            let text = match text.find("#[cfg(test)]") {
                Some(at) if path.extension().is_some_and(|e| e == "rs") => text[..at].to_owned(),
                _ => text,
            };
            texts.push((path.display().to_string(), text));
        }
    }
    texts.push((
        "README.md".into(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    ));
    let mut missing = Vec::new();
    let mut named = 0;
    for (file, text) in &texts {
        let tokens = text.split(|c: char| !(c.is_ascii_alphanumeric() || "._:/-".contains(c)));
        for token in tokens {
            let token = token.trim_matches(|c: char| ".:-/".contains(c));
            let (provider, id) = match token.split_once('/') {
                Some((p, id)) => (p, id),
                None if token.starts_with("claude-") => ("anthropic", token),
                None if token.starts_with("gpt-")
                    || token.starts_with("o1")
                    || token.starts_with("o3")
                    || token.starts_with("o4") =>
                {
                    ("openai", token)
                }
                None if token.starts_with("gemini-") => ("google", token),
                None => continue,
            };
            let provider = if provider == "azure" {
                "openai"
            } else {
                provider
            };
            let known = [
                "openai",
                "anthropic",
                "google",
                "openrouter",
                "groq",
                "mistral",
                "deepseek",
                "xai",
            ];
            let looks_like_a_model = id.bytes().any(|b| b.is_ascii_digit())
                && (provider == "openrouter" || !id.contains('/'))
                && !id.ends_with("acp")
                && id.len() > 2;
            if !known.contains(&provider) || !looks_like_a_model {
                continue;
            }
            named += 1;
            // What people copy (the README, the editor snippets) names current models only.
            let copied = file == "README.md" || file.contains("/editors/");
            match catalog::model(provider, id) {
                None => missing.push(format!("{file}: {provider}/{id}")),
                Some(model) if copied && !model.is_current(&catalog::today()) => {
                    missing.push(format!("{file}: {provider}/{id} (not current)"))
                }
                Some(_) => {}
            }
        }
    }
    assert!(named > 5, "the scan found only {named} ids");
    assert!(
        missing.is_empty(),
        "not in the catalog:\n{}",
        missing.join("\n")
    );
}
