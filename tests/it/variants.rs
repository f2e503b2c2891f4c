//! How hard the model thinks, through the binary: a model's variants as ACP's thought-level
//! config option, a switch changing `reasoning.effort` in the next Responses request, the
//! choice stored and restored by a new process, an agent's own variant, Anthropic thinking
//! budgets (with interleaved thinking, and a budget fitted under the answer's limit),
//! `tandem run --variant`, and each family's own instructions.

use crate::support::mock_llm::{anthropic_text, responses_text};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

/// A project whose models are the mock's `gpt-5` over the Responses API and a Claude model
/// over Anthropic's, with `extra` merged into the config.
fn config(url: &str, extra: Value) -> Value {
    let mut config = json!({
        "model": "mock/gpt-5",
        "provider": {
            "mock": {"api": "responses",
                     "options": {"baseURL": url, "apiKey": "sk-test", "retryDelay": 20},
                     "models": {"gpt-5": {"name": "GPT-5", "limit": {"context": 400000, "output": 128000}}}},
            "claude": {"api": "anthropic",
                       "options": {"baseURL": url, "apiKey": "sk-test", "retryDelay": 20},
                       "models": {"claude-sonnet-4-5": {"limit": {"context": 200000, "output": 64000}},
                                  "claude-small": {"id": "claude-opus-4-1",
                                                   "limit": {"context": 200000, "output": 4096},
                                                   "variants": {"deep": {"thinking":
                                                       {"type": "enabled", "budget_tokens": 60000}}}}}}
        }
    });
    if let (Some(config), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
        for (key, value) in extra {
            config.insert(key.clone(), value.clone());
        }
    }
    config
}

async fn start(extra: Value) -> (MockLlm, TestEnv, AcpProcess, Value) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&config(&mock.url, extra));
    let mut agent = env.spawn();
    agent.initialize().await;
    let opened = agent
        .request("session/new", json!({"cwd": env.project, "mcpServers": []}))
        .await;
    (mock, env, agent, opened["result"].clone())
}

fn thought_option(options: &Value) -> Value {
    options
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "thought_level")
        .cloned()
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_variant_switch_changes_the_next_requests_effort_and_is_restored() {
    let (mock, env, mut agent, opened) = start(json!({})).await;
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(
        thought_option(&opened["configOptions"]),
        json!({"id": "thought_level", "name": "Thinking",
               "description": "How hard the model thinks before it answers",
               "category": "thought_level", "type": "select", "currentValue": "default",
               "options": [
                   {"value": "default", "name": "Default", "description": "The model's own default"},
                   {"value": "minimal", "name": "Minimal"},
                   {"value": "low", "name": "Low"},
                   {"value": "medium", "name": "Medium"},
                   {"value": "high", "name": "High"}]})
    );
    mock.push(responses_text(None, &["ok"]));
    agent.prompt(&session, "one").await;
    assert_eq!(
        mock.requests()[0].body["reasoning"],
        json!({"summary": "auto"})
    );
    // An OpenAI reasoning model gets the instructions written for its family.
    let instructions = mock.requests()[0].body["instructions"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        instructions.contains("carry the task through to the end in this turn"),
        "{instructions}"
    );

    let set = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "thought_level", "value": "high"}),
        )
        .await;
    assert_eq!(
        thought_option(&set["result"]["configOptions"])["currentValue"],
        "high"
    );
    mock.push(responses_text(None, &["ok"]));
    agent.prompt(&session, "two").await;
    assert_eq!(
        mock.requests()[1].body["reasoning"],
        json!({"summary": "auto", "effort": "high"})
    );
    let bogus = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "thought_level", "value": "extreme"}),
        )
        .await;
    assert_eq!(bogus["error"]["code"], -32602);
    assert!(
        bogus["error"]["message"]
            .as_str()
            .unwrap()
            .contains("its variants are: default, minimal, low, medium, high"),
        "{bogus}"
    );

    agent.shutdown().await;
    let mut again = env.spawn();
    again.initialize().await;
    let loaded = again
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert_eq!(
        thought_option(&loaded["result"]["configOptions"])["currentValue"],
        "high"
    );
    mock.push(responses_text(None, &["ok"]));
    again.prompt(&session, "three").await;
    assert_eq!(mock.requests()[2].body["reasoning"]["effort"], "high");
    // Back to the model's own default.
    again
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "thought_level", "value": "default"}),
        )
        .await;
    mock.push(responses_text(None, &["ok"]));
    again.prompt(&session, "four").await;
    assert_eq!(
        mock.requests()[3].body["reasoning"],
        json!({"summary": "auto"})
    );
}

#[tokio::test]
async fn an_agent_brings_its_own_variant_and_a_model_without_any_offers_none() {
    let (mock, _env, mut agent, opened) =
        start(json!({"agent": {"build": {"variant": "medium"}}})).await;
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(
        thought_option(&opened["configOptions"])["currentValue"],
        "medium"
    );
    mock.push(responses_text(None, &["ok"]));
    agent.prompt(&session, "go").await;
    assert_eq!(mock.requests()[0].body["reasoning"]["effort"], "medium");

    let (_mock, _env, _agent, opened) = start(json!({"model": "claude/plain-model"})).await;
    assert_eq!(thought_option(&opened["configOptions"]), Value::Null);
}

#[tokio::test]
async fn anthropic_variants_set_a_thinking_budget_that_fits_the_answer() {
    let (mock, _env, mut agent, opened) = start(json!({"model": "claude/claude-sonnet-4-5"})).await;
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "thought_level", "value": "low"}),
        )
        .await;
    mock.push(anthropic_text("Thinking it over.", &["ok"], "end_turn"));
    agent.prompt(&session, "go").await;
    let request = &mock.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    // And Claude the ones written for it.
    let system = request.body["system"].to_string();
    assert!(system.contains("Be brief: a few sentences"), "{system}");
    assert_eq!(
        request.body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4000})
    );
    assert_eq!(request.body["max_tokens"], 64000);
    assert_eq!(
        request.headers["anthropic-beta"],
        "interleaved-thinking-2025-05-14"
    );
    let thoughts = agent.updates_of("agent_thought_chunk");
    assert_eq!(thoughts[0]["content"]["text"], "Thinking it over.");

    // A configured budget larger than the model's answer is cut to fit it.
    agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "claude/claude-small"}),
        )
        .await;
    let set = agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "thought_level", "value": "deep"}),
        )
        .await;
    assert_eq!(
        thought_option(&set["result"]["configOptions"])["currentValue"],
        "deep"
    );
    mock.push(anthropic_text("", &["ok"], "end_turn"));
    agent.prompt(&session, "again").await;
    let request = &mock.requests()[1].body;
    assert_eq!(request["model"], "claude-opus-4-1");
    assert_eq!(
        request["thinking"],
        json!({"type": "enabled", "budget_tokens": 3072})
    );
    assert_eq!(request["max_tokens"], 4096);
}

#[tokio::test]
async fn tandem_run_takes_a_variant() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&config(&mock.url, json!({})));
    mock.push(responses_text(None, &["ok"]));
    let output = tokio::task::spawn_blocking({
        let mut command = env.command(&["run", "--variant", "low", "hello"]);
        move || command.stdin(std::process::Stdio::null()).output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(mock.requests()[0].body["reasoning"]["effort"], "low");
}

#[tokio::test]
async fn a_claude_the_catalog_marks_adaptive_thinks_by_effort_with_its_levels() {
    let (mock, _env, mut agent, opened) = start(json!({"model": "claude/claude-sonnet-5-5"})).await;
    let session = opened["sessionId"].as_str().unwrap().to_owned();
    // The catalog's levels for the model, not a table in code.
    let levels: Vec<Value> = thought_option(&opened["configOptions"])["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].clone())
        .collect();
    assert_eq!(
        levels,
        json!(["default", "low", "medium", "high", "xhigh", "max"])
            .as_array()
            .unwrap()
            .clone()
    );
    agent
        .request(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "thought_level", "value": "xhigh"}),
        )
        .await;
    mock.push(anthropic_text("Weighing it.", &["ok"], "end_turn"));
    agent.prompt(&session, "go").await;
    let request = &mock.requests()[0];
    assert_eq!(
        request.body["thinking"],
        json!({"type": "adaptive"}),
        "{}",
        request.body
    );
    assert_eq!(request.body["output_config"], json!({"effort": "xhigh"}));
    assert!(request.body.get("temperature").is_none());
    assert!(request.headers.get("anthropic-beta").is_none());
    let thoughts = agent.updates_of("agent_thought_chunk");
    assert_eq!(thoughts[0]["content"]["text"], "Weighing it.");
}
