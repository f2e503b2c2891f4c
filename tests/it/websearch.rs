//! Web search through a keyed service, through the binary: a fake of each service's JSON API on
//! 127.0.0.1 (Brave, Exa, Tavily, SearXNG) records what it was asked; the tool is offered only
//! with a service, sends the key the service's way, filters domains, reads each answer into
//! titles, URLs and snippets, and turns a service's error into words the model reads;
//! `tandem doctor` says how to turn it on.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{MockLlm, TestEnv, run_all};

/// What the fake service was asked: path, query string, the key header, the JSON body.
type Asked = Arc<Mutex<Vec<(String, String, String, Value)>>>;

/// A fake of every service at once; `status` answers every request (200: results).
async fn fake_services(status: u16) -> (String, Asked) {
    let asked: Asked = Arc::default();
    let record = |path: &'static str| {
        move |State((asked, status)): State<(Asked, u16)>,
              headers: HeaderMap,
              RawQuery(query): RawQuery,
              body: String| async move {
            let key = ["x-subscription-token", "x-api-key", "authorization"]
                .iter()
                .find_map(|h| headers.get(*h).and_then(|v| v.to_str().ok()))
                .unwrap_or_default()
                .to_owned();
            let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            asked
                .lock()
                .unwrap()
                .push((path.to_owned(), query.unwrap_or_default(), key, body));
            if status != 200 {
                return (
                    StatusCode::from_u16(status).unwrap(),
                    r#"{"error": "quota exceeded for this key"}"#.to_owned(),
                );
            }
            let hits = json!([
                {"title": "Tokio docs", "url": "https://docs.rs/tokio", "description": "An async runtime.",
                 "content": "An async runtime.", "highlights": ["An async runtime."]},
                {"title": "Spam", "url": "https://spam.example/tokio", "description": "Buy now.",
                 "content": "Buy now.", "highlights": ["Buy now."]}
            ]);
            let answer = match path {
                "brave" => json!({"web": {"results": hits}}),
                _ => json!({"results": hits}),
            };
            (StatusCode::OK, answer.to_string())
        }
    };
    let app = Router::new()
        .route("/res/v1/web/search", get(record("brave")))
        .route(
            "/search",
            post(record("post-search")).get(record("searxng")),
        )
        .with_state((asked.clone(), status));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, asked)
}

async fn search_with(
    websearch: Value,
    status: u16,
) -> (
    Vec<String>,
    Vec<(String, String, String, Value)>,
    Vec<String>,
) {
    let (base, asked) = fake_services(status).await;
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    let mut websearch = websearch;
    websearch["baseURL"] = json!(base);
    config["websearch"] = websearch;
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let told = run_all(
        &mock,
        &mut agent,
        &session,
        &[(
            "websearch",
            json!({"query": "tokio runtime", "blocked_domains": ["spam.example"]}),
        )],
    )
    .await;
    let offered: Vec<String> = mock.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    let asked = asked.lock().unwrap().clone();
    (told, asked, offered)
}

const RESULTS: &str = "\n1. Tokio docs\n   https://docs.rs/tokio\n   An async runtime.\n\nCite the \
URLs you use; read a page whole with webfetch.";

#[tokio::test]
async fn brave_gets_its_key_in_its_header_and_the_blocked_domain_is_dropped() {
    let (told, asked, offered) =
        search_with(json!({"service": "brave", "apiKey": "brave-key"}), 200).await;
    assert!(offered.contains(&"websearch".to_owned()), "{offered:?}");
    assert_eq!(
        told[0],
        format!("Results for \"tokio runtime\" (brave):\n{RESULTS}")
    );
    let (path, query, key, _) = &asked[0];
    assert_eq!((path.as_str(), key.as_str()), ("brave", "brave-key"));
    assert!(
        query.contains("q=tokio+runtime+-site%3Aspam.example") && query.contains("count=8"),
        "{query}"
    );
}

#[tokio::test]
async fn exa_and_tavily_take_their_filters_in_the_body_and_searxng_needs_no_key() {
    let (told, asked, _) = search_with(json!({"service": "exa", "apiKey": "exa-key"}), 200).await;
    assert_eq!(
        told[0],
        format!("Results for \"tokio runtime\" (exa):\n{RESULTS}")
    );
    assert_eq!(asked[0].2, "exa-key");
    assert_eq!(asked[0].3["excludeDomains"], json!(["spam.example"]));

    let (told, asked, _) =
        search_with(json!({"service": "tavily", "apiKey": "tvly-key"}), 200).await;
    assert_eq!(
        told[0],
        format!("Results for \"tokio runtime\" (tavily):\n{RESULTS}")
    );
    assert_eq!(asked[0].2, "Bearer tvly-key");
    assert_eq!(asked[0].3["exclude_domains"], json!(["spam.example"]));

    let (told, asked, _) = search_with(json!({"service": "searxng"}), 200).await;
    assert_eq!(
        told[0],
        format!("Results for \"tokio runtime\" (searxng):\n{RESULTS}")
    );
    assert!(asked[0].1.contains("format=json"), "{:?}", asked[0]);
}

#[tokio::test]
async fn a_services_error_is_a_tool_error_the_model_reads() {
    let (told, _, _) = search_with(json!({"service": "brave", "apiKey": "k"}), 429).await;
    assert_eq!(
        told[0],
        "The search service brave answered HTTP 429 Too Many Requests: {\"error\": \"quota \
         exceeded for this key\"}"
    );
}

#[tokio::test]
async fn without_a_service_the_tool_is_not_offered_and_doctor_says_how() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_text(&["no search"], "stop"));
    agent.prompt(&session, "search something").await;
    let tools = mock.requests()[0].body["tools"].to_string();
    assert!(!tools.contains("\"websearch\""), "{tools}");
    let _ = openai_tool_call;
    let output = env.command(&["doctor", "--timeout", "1"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("! web search: off (no search service is configured and no BRAVE_API_KEY"),
        "{out}"
    );
    assert!(
        out.contains("\"websearch\": {\"service\": \"brave\""),
        "{out}"
    );
}
