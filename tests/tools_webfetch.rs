//! The webfetch tool through the binary against a page served on 127.0.0.1.

mod support;

use axum::Router;
use axum::response::Html;
use axum::routing::get;
use serde_json::json;
use support::call_tool;

async fn serve_page() -> String {
    let app = Router::new()
        .route(
            "/page",
            get(|| async {
                Html("<html><body><h1>Title</h1><p>Some <b>bold</b> text.</p></body></html>")
            }),
        )
        .route("/big", get(|| async { "x".repeat(6 * 1024 * 1024) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::test]
async fn pages_come_back_as_markdown_and_limits_hold() {
    let (mock, _env, mut agent, session) = support::start("openai").await;
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
