//! The webfetch tool through the binary against a page served on 127.0.0.1.

use crate::support::call_tool;
use axum::Router;
use axum::response::Html;
use axum::routing::get;
use serde_json::json;

async fn serve_page() -> String {
    let app = Router::new()
        .route(
            "/page",
            get(|| async {
                Html("<html><body><h1>Title</h1><p>Some <b>bold</b> text.</p></body></html>")
            }),
        )
        .route("/big", get(|| async { "x".repeat(6 * 1024 * 1024) }))
        .route(
            "/long",
            get(|| async {
                (1..=100_000)
                    .map(|i| format!("line {i}\n"))
                    .collect::<String>()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test]
async fn pages_come_back_as_markdown_and_limits_hold() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let base = serve_page().await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "webfetch",
        json!({"url": format!("{base}/page")}),
    )
    .await;
    assert_eq!(result["content"], "# Title\n\nSome **bold** text.");
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "webfetch",
        json!({"url": format!("{base}/page"), "format": "html"}),
    )
    .await;
    assert!(result["content"].as_str().unwrap().starts_with("<html>"));
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "webfetch",
        json!({"url": format!("{base}/big")}),
    )
    .await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .ends_with("is larger than 5 MB."),
        "{result}"
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "webfetch",
        json!({"url": "file:///etc/passwd"}),
    )
    .await;
    assert_eq!(
        result["content"],
        "Only http and https URLs can be fetched, not `file`."
    );
    assert_eq!(agent.updates_of("tool_call")[0]["kind"], "fetch");
}

#[tokio::test]
async fn a_long_page_is_cut_like_bash_output_and_not_sent_twice() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let base = serve_page().await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "webfetch",
        json!({"url": format!("{base}/long"), "format": "text"}),
    )
    .await;
    let call_id = "call_0";
    let text = result["content"].as_str().unwrap();
    assert!(
        text.len() < 60 * 1024,
        "{} bytes reached the model",
        text.len()
    );
    assert!(text.starts_with("line 1\nline 2\n"), "{}", &text[..40]);
    assert!(text.trim_end().ends_with("line 100000"), "the tail is kept");
    let after = text
        .split("is saved to ")
        .nth(1)
        .expect("names the saved file");
    let saved = std::path::PathBuf::from(after.split(". Use grep").next().unwrap());
    assert!(
        saved.starts_with(env.data.join("tool-output")),
        "{}",
        saved.display()
    );
    assert!(saved.ends_with(format!("tool_{call_id}")));
    let full = std::fs::read_to_string(&saved).unwrap();
    assert!(full.starts_with("line 1\n") && full.ends_with("line 100000\n"));
    // The editor gets the cut output once, as content; rawOutput does not repeat it.
    let done = crate::support::call_updates(&agent, call_id)
        .into_iter()
        .find(|u| u["status"] == "completed")
        .unwrap();
    assert!(
        done["rawOutput"].get("output").is_none(),
        "{}",
        done["rawOutput"]
    );
    assert_eq!(
        done["rawOutput"]["metadata"]["outputFile"],
        saved.display().to_string()
    );
    assert!(done.to_string().len() < 80 * 1024);
}
