//! The providers' own web search through the binary, against the mock speaking each wire's
//! real events: the search offered in the request (and the keyed `websearch` tool not), shown
//! in the editor as a `websearch` call with the pages found, the cited pages listed after the
//! answer, nothing of it sent back in the next request, and all of it replayed by
//! `session/load`. Not offered where the rules would ask, nor on a server not known to have it.

use serde_json::{Value, json};

use crate::support::mock_llm::{anthropic_text, responses_text};
use crate::support::mock_search::{anthropic_search, responses_search};
use crate::support::{AcpProcess, MockLlm, TestEnv};

const DOCS: &str = "https://docs.rs/tokio";
const GUIDE: &str = "https://tokio.rs/tokio/tutorial";

/// A project on the mock's `api` with `websearch` (and `permission`) as given.
async fn start(
    api: &str,
    websearch: Value,
    permission: Value,
) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, api);
    config["websearch"] = websearch;
    config["permission"] = permission;
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

/// The names of the function tools a request offered, and its other tools whole.
fn offered(body: &Value) -> (Vec<String>, Vec<Value>) {
    let mut functions = Vec::new();
    let mut others = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().or(tool["function"]["name"].as_str());
        match (tool["type"].as_str(), name) {
            (Some("function") | None, Some(name)) => functions.push(name.to_owned()),
            _ => {
                let mut tool = tool.clone();
                tool.as_object_mut().unwrap().remove("cache_control");
                others.push(tool);
            }
        }
    }
    (functions, others)
}

/// The search call as the editor was shown it: first running, then with its pages.
fn shown_call(agent: &AcpProcess, id: &str) -> (Value, Value) {
    let started = agent
        .updates_of("tool_call")
        .into_iter()
        .find(|u| u["toolCallId"] == id)
        .expect("the search is shown as a tool call");
    let done = agent
        .updates_of("tool_call_update")
        .into_iter()
        .rfind(|u| u["toolCallId"] == id)
        .expect("the search's end is shown");
    (started, done)
}

#[tokio::test]
async fn the_responses_api_searches_and_its_citations_are_listed_after_the_answer() {
    // A keyed service is configured too: the provider's own search stands in for it.
    let keyed =
        json!({"hosted": true, "service": "brave", "apiKey": "k", "baseURL": "http://127.0.0.1:9"});
    let (mock, env, mut agent, session) = start("responses", keyed, json!({})).await;
    mock.push(responses_search(
        "tokio runtime",
        &[DOCS, GUIDE],
        "Tokio is an async runtime.",
        &[(DOCS, "Tokio docs")],
    ));
    let response = agent.prompt(&session, "what is tokio?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");

    let first = &mock.requests()[0].body;
    let (functions, others) = offered(first);
    assert_eq!(others, [json!({"type": "web_search"})]);
    assert!(
        !functions.contains(&"websearch".to_owned()),
        "{functions:?}"
    );
    assert!(functions.contains(&"read".to_owned()));
    assert_eq!(
        first["include"],
        json!([
            "reasoning.encrypted_content",
            "web_search_call.action.sources"
        ])
    );

    let (started, done) = shown_call(&agent, "ws_1");
    assert_eq!(started["kind"], "fetch");
    assert_eq!(started["status"], "in_progress");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["title"], "Search: tokio runtime (2 results)");
    assert_eq!(
        done["content"][0]["content"]["text"],
        format!("Searched the web for \"tokio runtime\":\n\n1. {DOCS}\n2. {GUIDE}")
    );
    assert_eq!(
        agent.agent_text(),
        format!("Tokio is an async runtime.\n\nSources:\n1. [Tokio docs]({DOCS})\n")
    );

    // The next request carries the answer's words, not the provider's search.
    mock.push(responses_text(None, &["ok"]));
    agent.prompt(&session, "thanks").await;
    let input = mock.requests()[1].body["input"].clone();
    assert_eq!(
        input,
        json!([
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "what is tokio?"}]},
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Tokio is an async runtime."}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "thanks"}]}
        ])
    );

    // Replayed by a new process as it was shown.
    agent.shutdown().await;
    let mut again = env.spawn();
    again.initialize().await;
    again
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let replayed = again
        .updates_of("tool_call")
        .into_iter()
        .find(|u| u["toolCallId"] == "ws_1")
        .expect("the search is replayed");
    assert_eq!(replayed["status"], "completed");
    assert_eq!(replayed["title"], "Search: tokio runtime (2 results)");
    assert!(
        again
            .agent_text()
            .contains(&format!("Sources:\n1. [Tokio docs]({DOCS})")),
        "{}",
        again.agent_text()
    );
}

#[tokio::test]
async fn anthropic_searches_with_its_server_tool_and_the_citation_is_shown() {
    let (mock, env, mut agent, session) =
        start("anthropic", json!({"hosted": true}), json!({})).await;
    mock.push(anthropic_search(
        "tokio 2026 release",
        &[(DOCS, "Tokio docs"), (GUIDE, "Tokio tutorial")],
        "Tokio 2 shipped.",
    ));
    let response = agent.prompt(&session, "what is new in tokio?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");

    let (_, others) = offered(&mock.requests()[0].body);
    assert_eq!(
        others,
        [json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})]
    );
    let (started, done) = shown_call(&agent, "srvtoolu_1");
    assert_eq!(started["status"], "in_progress");
    assert_eq!(done["title"], "Search: tokio 2026 release (2 results)");
    assert_eq!(
        done["content"][0]["content"]["text"],
        format!(
            "Searched the web for \"tokio 2026 release\":\n\n1. Tokio docs\n   {DOCS}\n2. Tokio tutorial\n   {GUIDE}"
        )
    );
    assert_eq!(
        agent.agent_text(),
        format!("Tokio 2 shipped.\n\nSources:\n1. [Tokio docs]({DOCS})\n")
    );

    mock.push(anthropic_text("", &["ok"], "end_turn"));
    agent.prompt(&session, "thanks").await;
    let messages = mock.requests()[1].body["messages"].clone();
    assert_eq!(messages[1]["role"], "assistant");
    let blocks: Vec<&str> = messages[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(blocks, ["text"], "{messages}");
    assert_eq!(messages[1]["content"][0]["text"], "Tokio 2 shipped.");

    let output = env.command(&["doctor", "--timeout", "1"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("web search: mock's own search (for mock/test-model, while `websearch` is allowed without asking)"),
        "{out}"
    );
}

#[tokio::test]
async fn a_search_the_rules_would_ask_about_is_left_to_the_keyed_tool() {
    let keyed =
        json!({"hosted": true, "service": "brave", "apiKey": "k", "baseURL": "http://127.0.0.1:9"});
    let (mock, _env, mut agent, session) =
        start("responses", keyed, json!({"websearch": "ask"})).await;
    mock.push(responses_text(None, &["ok"]));
    agent.prompt(&session, "hello").await;
    let (functions, others) = offered(&mock.requests()[0].body);
    assert!(others.is_empty(), "{others:?}");
    assert!(functions.contains(&"websearch".to_owned()), "{functions:?}");
}

#[tokio::test]
async fn another_server_of_the_wire_is_not_assumed_to_search() {
    let (mock, _env, mut agent, session) = start("anthropic", json!({}), json!({})).await;
    mock.push(anthropic_text("", &["ok"], "end_turn"));
    agent.prompt(&session, "hello").await;
    let (functions, others) = offered(&mock.requests()[0].body);
    assert!(others.is_empty(), "{others:?}");
    assert!(
        !functions.contains(&"websearch".to_owned()),
        "{functions:?}"
    );
}
