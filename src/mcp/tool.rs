//! An MCP server's tool as a Tandem tool: named `<server>_<tool>` (sanitised to what providers
//! accept, collisions numbered), asked under every name a rule may use for it (so a rule never
//! misses it), its result's text, images and resources turned into the model's output.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotification,
    CancelledNotificationParam, ClientRequest, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, Value};

use super::connect::Connection;
use super::elicit::Asker;
use crate::message::{Attachment, Location};
use crate::tool::{Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// Providers accept tool names of at most this many characters.
const MAX_NAME: usize = 64;

pub(super) struct McpTool {
    name: String,
    /// Every permission key a rule may name it by: the name the model calls, the sanitised
    /// `<server>_<tool>` it would have had without a collision, and `<server>_<tool>` as written.
    keys: Vec<String>,
    /// The server marks it read-only (`readOnlyHint`): plan mode runs it without asking.
    read_only: bool,
    /// The name the server knows it by.
    remote: String,
    claude: String,
    description: String,
    parameters: Value,
    connection: Arc<Connection>,
    /// Its server's name, as the person's questions from it say.
    server: String,
}

impl McpTool {
    pub fn new(
        server: &str,
        naming: Naming,
        listed: &rmcp::model::Tool,
        connection: Arc<Connection>,
    ) -> Self {
        let mut parameters = Value::Object(listed.input_schema.as_ref().clone());
        if parameters.get("type").is_none() {
            parameters["type"] = "object".into();
        }
        let read_only = listed
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false);
        Self {
            name: naming.name,
            keys: naming.keys,
            read_only,
            remote: listed.name.to_string(),
            claude: naming.claude,
            description: listed
                .description
                .as_deref()
                .unwrap_or("A tool of an MCP server.")
                .to_owned(),
            parameters,
            connection,
            server: server.to_owned(),
        }
    }
}

/// A tool's name and every permission key it is checked under.
pub(super) struct Naming {
    pub name: String,
    pub keys: Vec<String>,
    /// Claude Code's name for it, `mcp__<server>__<tool>` (hooks match it).
    pub claude: String,
}

/// `<server>_<tool>` with every character providers refuse made `_`, cut to 64, numbered when
/// another tool already has the name. A numbered tool is still checked under the name it
/// would have had, so a deny written for that name is never dodged.
pub(super) fn unique_name(server: &str, tool: &str, taken: &mut Vec<String>) -> Naming {
    let written = format!("{server}_{tool}");
    let clean: String = written
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME)
        .collect();
    let mut name = clean.clone();
    let mut n = 2;
    while taken.contains(&name) {
        let suffix = format!("_{n}");
        let keep = MAX_NAME.saturating_sub(suffix.len()).min(clean.len());
        name = format!("{}{suffix}", &clean[..keep]);
        n += 1;
    }
    taken.push(name.clone());
    let mut keys = vec![name.clone()];
    for key in [clean, written] {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    Naming {
        name,
        keys,
        claude: format!("mcp__{server}__{tool}"),
    }
}

/// The first short string argument, which says what a call is about.
fn main_argument(input: &Value) -> Option<String> {
    input.as_object()?.values().find_map(|v| {
        let text = v.as_str()?;
        Some(text.chars().take(60).collect())
    })
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn permission_keys(&self) -> Vec<&str> {
        self.keys.iter().map(String::as_str).collect()
    }

    fn claude_name(&self) -> Option<String> {
        Some(self.claude.clone())
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let title = match main_argument(input) {
            Some(argument) => format!("{}: {argument}", self.remote),
            None => self.remote.clone(),
        };
        (title, Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let arguments: Map<String, Value> = match input {
                Value::Object(map) => map,
                Value::Null => Map::new(),
                other => {
                    return Err(ToolError::failed(format!(
                        "The arguments of {} must be a JSON object, not {other}.",
                        self.name
                    )));
                }
            };
            let (title, _) = self.describe(&Value::Object(arguments.clone()), &ctx.cwd);
            let mut needs: Vec<Need> = self
                .keys
                .iter()
                .map(|key| Need::new(key, vec!["*".into()]))
                .collect();
            if !self.read_only {
                // What plan mode asks about: a tool its server does not call read-only.
                needs.push(Need::new(
                    crate::permission::keys::MCP_SIDE_EFFECTS,
                    vec![self.name.clone()],
                ));
            }
            ctx.ask(PermissionCheck {
                needs,
                title: format!("Run the MCP tool {title} ({})", self.name),
                ..Default::default()
            })
            .await?;
            ctx.started();
            let params = CallToolRequestParams::new(self.remote.clone()).with_arguments(arguments);
            let result = self.call(params, ctx).await?;
            let content = serde_json::to_value(&result.content).unwrap_or_default();
            let (output, attachments) = render(&content);
            if result.is_error == Some(true) {
                return Err(ToolError::failed(output));
            }
            Ok(ToolOutput {
                title,
                output,
                metadata: result.structured_content.unwrap_or(Value::Null),
                attachments,
                ..ToolOutput::default()
            })
        })
    }
}

impl McpTool {
    /// Sends the call (its server's questions meanwhile go to the person, through this call);
    /// streams its progress into the call's output; on cancel, tells the server
    /// (`notifications/cancelled`) and stops waiting.
    async fn call(
        &self,
        params: CallToolRequestParams,
        ctx: &ToolContext,
    ) -> Result<CallToolResult, ToolError> {
        let _asking = self.connection.notices.askers.during(Asker {
            server: self.server.clone(),
            client: ctx.client.clone(),
            session_id: ctx.session_id.clone(),
            call_id: ctx.call_id.clone(),
        });
        let failed = |e: rmcp::ServiceError| {
            ToolError::failed(format!("The MCP server failed the call: {e}"))
        };
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = self.connection.service.peer().clone();
        let handle = peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(failed)?;
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        let notices = &self.connection.notices;
        let mut progress = notices.follow(&token);
        let answer = handle.await_response();
        tokio::pin!(answer);
        let outcome = loop {
            tokio::select! {
                answer = &mut answer => break answer.map_err(failed),
                Some(line) = progress.recv() => ctx.output(line),
                _ = ctx.cancel.cancelled() => {
                    let cancel = CancelledNotification::new(CancelledNotificationParam::new(
                        Some(id),
                        Some("cancelled by the person".into()),
                    ));
                    let _ = peer.send_notification(cancel.into()).await;
                    break Err(ToolError::Cancelled);
                }
            }
        };
        notices.forget(&token);
        match outcome? {
            ServerResult::CallToolResult(result) => Ok(result),
            other => Err(ToolError::failed(format!(
                "The MCP server answered the call with something else: {}",
                serde_json::to_string(&other).unwrap_or_default()
            ))),
        }
    }
}

/// MCP content blocks as text for the model and images beside it.
fn render(content: &Value) -> (String, Vec<Attachment>) {
    let mut text = Vec::new();
    let mut images = Vec::new();
    for block in content.as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => text.push(block["text"].as_str().unwrap_or_default().to_owned()),
            Some("image") => images.push(Attachment {
                mime: block["mimeType"].as_str().unwrap_or("image/png").to_owned(),
                data: block["data"].as_str().unwrap_or_default().to_owned(),
            }),
            Some("resource") => {
                let resource = &block["resource"];
                let uri = resource["uri"].as_str().unwrap_or_default();
                match resource["text"].as_str() {
                    Some(body) => {
                        text.push(format!("<resource uri=\"{uri}\">\n{body}\n</resource>"))
                    }
                    None => text.push(format!("[binary resource {uri}]")),
                }
            }
            Some("resource_link") => text.push(format!(
                "[resource {}]",
                block["uri"].as_str().unwrap_or_default()
            )),
            _ => text.push(block.to_string()),
        }
    }
    (text.join("\n"), images)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised_and_made_unique() {
        let mut taken = Vec::new();
        let first = unique_name("git hub", "search.code", &mut taken);
        assert_eq!(first.name, "git_hub_search_code");
        assert_eq!(first.keys, ["git_hub_search_code", "git hub_search.code"]);
        // A collision is numbered, and still checked under the name it collided on and the
        // name as written: a rule for either is never dodged.
        let second = unique_name("git.hub", "search code", &mut taken);
        assert_eq!(second.name, "git_hub_search_code_2");
        assert_eq!(
            second.keys,
            [
                "git_hub_search_code_2",
                "git_hub_search_code",
                "git.hub_search code"
            ]
        );
        let long = unique_name("s", &"x".repeat(100), &mut taken);
        assert_eq!(long.name.len(), 64);
        // A server cannot take a built-in tool's name.
        let mut taken = vec!["apply_patch".to_owned()];
        assert_eq!(
            unique_name("apply", "patch", &mut taken).name,
            "apply_patch_2"
        );
    }

    #[test]
    fn content_becomes_text_and_images() {
        let content = serde_json::json!([
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "body"}}
        ]);
        let (text, images) = render(&content);
        assert_eq!(
            text,
            "hello\n<resource uri=\"file:///a.txt\">\nbody\n</resource>"
        );
        assert_eq!(images.len(), 1);
    }
}
