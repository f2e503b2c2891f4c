//! An MCP server for Tandem's tests, built on rmcp's server side, over stdio: an `echo` tool,
//! a `picture` tool that returns an image and a `fails` tool that reports an error.
//! `MCP_TEST_MODE=fail` makes it write to stderr and exit before serving; `slow` makes it wait
//! two seconds first; `http` serves Streamable HTTP on 127.0.0.1 at `/mcp` instead of stdio,
//! printing `PORT=<n>` first, and answers only requests carrying the header `x-test: yes`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

struct TestServer;

fn schema(value: serde_json::Value) -> Arc<serde_json::Map<String, serde_json::Value>> {
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let text = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("echo", "Echoes the text back.", schema(text)),
            Tool::new(
                "picture",
                "Returns a tiny picture.",
                schema(json!({"type": "object"})),
            ),
            Tool::new("fails", "Always fails.", schema(json!({"type": "object"}))),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "echo" => {
                let text = arguments
                    .get("text")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default();
                CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))])
            }
            "picture" => CallToolResult::success(vec![
                ContentBlock::text("a picture"),
                ContentBlock::image("iVBORw0KGgo=", "image/png"),
            ]),
            "fails" => CallToolResult::error(vec![ContentBlock::text("the tool broke")]),
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() {
    match std::env::var("MCP_TEST_MODE").as_deref() {
        Ok("fail") => {
            eprintln!("test server: cannot open its database");
            std::process::exit(1);
        }
        Ok("slow") => tokio::time::sleep(std::time::Duration::from_secs(2)).await,
        _ => {}
    }
    if std::env::var("MCP_TEST_MODE").as_deref() == Ok("http") {
        return serve_http().await;
    }
    let service = TestServer
        .serve(rmcp::transport::stdio())
        .await
        .expect("the client initializes");
    let _ = service.waiting().await;
}

async fn serve_http() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        || Ok(TestServer),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(require_header));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("PORT={}", listener.local_addr().unwrap().port());
    axum::serve(listener, app).await.unwrap();
}

async fn require_header(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request
        .headers()
        .get("x-test")
        .and_then(|v| v.to_str().ok())
        != Some("yes")
    {
        return axum::http::StatusCode::FORBIDDEN.into_response();
    }
    next.run(request).await
}

use axum::response::IntoResponse;
