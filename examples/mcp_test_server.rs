//! An MCP server for Tandem's tests, built on rmcp's server side, over stdio: an `echo` tool,
//! a `picture` tool that returns an image and a `fails` tool that reports an error.
//! `MCP_TEST_MODE=fail` makes it write to stderr and exit before serving; `slow` makes it wait
//! two seconds first.
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
    let service = TestServer
        .serve(rmcp::transport::stdio())
        .await
        .expect("the client initializes");
    let _ = service.waiting().await;
}
