//! An MCP server for Tandem's tests, built on rmcp's server side, over stdio: an `echo` tool,
//! a `picture` tool that returns an image, a `fails` tool that reports an error, a `slow` tool
//! that reports progress, a `wait` tool that waits until cancelled (noting the cancellation in
//! the file `MCP_TEST_LOG`), a `grow` tool that adds a `grown` tool and says so, and an `ask`
//! tool that asks the person a form (`elicitation/create`) and answers with what came back; a
//! `review` prompt (arguments `file` and `focus`) and a `memo://notes` resource.
//! `MCP_TEST_MODE=fail` makes it write to stderr and exit before serving; `slow` makes it wait
//! two seconds first; `http` serves Streamable HTTP on 127.0.0.1 at `/mcp` instead of stdio,
//! printing `PORT=<n>` first, and answers only requests carrying the header `x-test: yes`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ContentBlock, ElicitRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role as PromptRole,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

#[derive(Clone, Default)]
struct TestServer {
    grown: Arc<std::sync::atomic::AtomicBool>,
}

fn schema(value: serde_json::Value) -> Arc<serde_json::Map<String, serde_json::Value>> {
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_resources()
            .build();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let text = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        Ok(ListToolsResult::with_all_items(
            vec![
                Tool::new("echo", "Echoes the text back.", schema(text)),
                Tool::new(
                    "picture",
                    "Returns a tiny picture.",
                    schema(json!({"type": "object"})),
                ),
                Tool::new("fails", "Always fails.", schema(json!({"type": "object"}))),
                Tool::new(
                    "slow",
                    "Reports progress, then answers.",
                    schema(json!({"type": "object"})),
                ),
                Tool::new(
                    "wait",
                    "Waits until cancelled.",
                    schema(json!({"type": "object"})),
                ),
                Tool::new("grow", "Adds a tool.", schema(json!({"type": "object"}))),
                Tool::new(
                    "patch",
                    "Pretends to patch.",
                    schema(json!({"type": "object"})),
                ),
                Tool::new("ask", "Asks the person.", schema(json!({"type": "object"}))),
                Tool::new("peek", "Only looks.", schema(json!({"type": "object"})))
                    .annotate(rmcp::model::ToolAnnotations::new().read_only(true)),
            ]
            .into_iter()
            .chain(
                self.grown
                    .load(std::sync::atomic::Ordering::Relaxed)
                    .then(|| {
                        Tool::new(
                            "grown",
                            "A tool added later.",
                            schema(json!({"type": "object"})),
                        )
                    }),
            )
            .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
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
            "slow" => {
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=3 {
                        let note = ProgressNotificationParam::new(token.clone(), step as f64)
                            .with_total(3.0)
                            .with_message(format!("step {step} of 3"));
                        let _ = context.peer.notify_progress(note).await;
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text("slow done")])
            }
            "wait" => {
                tokio::time::sleep(std::time::Duration::from_secs(30)).await;
                CallToolResult::success(vec![ContentBlock::text("waited")])
            }
            "grow" => {
                self.grown.store(true, std::sync::atomic::Ordering::Relaxed);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text("grew")])
            }
            "ask" => CallToolResult::success(vec![ContentBlock::text(ask(&context).await)]),
            "patch" => CallToolResult::success(vec![ContentBlock::text("not a real patch")]),
            "peek" => CallToolResult::success(vec![ContentBlock::text("peeked")]),
            "grown" => CallToolResult::success(vec![ContentBlock::text("the new tool ran")]),
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let arguments = vec![PromptArgument::new("file"), PromptArgument::new("focus")];
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "review",
            Some("Review a file with a focus."),
            Some(arguments),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let get = |key: &str| {
            arguments
                .get(key)
                .and_then(|v| v.as_str())
                .unwrap_or("-")
                .to_owned()
        };
        let text = format!("Review {} focusing on {}.", get("file"), get("focus"));
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(PromptRole::User, text)]).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "memo://notes",
            "notes",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "memo://notes" {
            return Err(ErrorData::invalid_params("no such resource", None));
        }
        let contents = vec![ResourceContents::text(
            "The notes say: ship on Friday.",
            "memo://notes",
        )];
        Ok(ReadResourceResult::new(contents).into())
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        if let Ok(path) = std::env::var("MCP_TEST_LOG") {
            let line = format!("cancelled {}\n", notification.reason.unwrap_or_default());
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
        }
    }
}

/// The `ask` tool's form, and its answer in words.
async fn ask(context: &RequestContext<RoleServer>) -> String {
    let form = json!({"mode": "form", "message": "Which database should the migration target?",
        "requestedSchema": {"type": "object", "properties": {
            "db": {"type": "string", "title": "Database", "enum": ["postgres", "sqlite"],
                   "enumNames": ["PostgreSQL", "SQLite"]},
            "now": {"type": "boolean", "title": "Run now", "description": "Run it right away?"}},
            "required": ["db"]}});
    let params: ElicitRequestParams = serde_json::from_value(form).expect("a valid form");
    match context.peer.create_elicitation(params).await {
        Ok(answer) => format!(
            "answer: {} {}",
            serde_json::to_value(&answer.action).unwrap(),
            answer.content.unwrap_or_default()
        ),
        Err(error) => format!("could not ask: {error}"),
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
    let service = TestServer::default()
        .serve(rmcp::transport::stdio())
        .await
        .expect("the client initializes");
    let _ = service.waiting().await;
}

async fn serve_http() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        || Ok(TestServer::default()),
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
