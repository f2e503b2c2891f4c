//! An MCP server's resources, read by the model through `<server>_read_resource` (its
//! description lists what the server offers), and by Tandem when the editor attaches one of
//! them as a resource link.

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};

use super::connect::Connection;
use crate::message::Location;
use crate::tool::{Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// How many resources a description names.
const LISTED: usize = 30;

pub(super) struct ResourceTool {
    name: String,
    description: String,
    connection: Arc<Connection>,
}

impl ResourceTool {
    pub fn new(name: String, server: &str, connection: Arc<Connection>) -> Self {
        let mut description =
            format!("Reads a resource of the MCP server {server} by its URI. It offers:\n");
        for resource in connection.resources.iter().take(LISTED) {
            let about = resource.description.as_deref().unwrap_or(&resource.name);
            description.push_str(&format!("- {} ({about})\n", resource.uri));
        }
        if connection.resources.len() > LISTED {
            description.push_str(&format!(
                "… and {} more.\n",
                connection.resources.len() - LISTED
            ));
        }
        Self {
            name,
            description,
            connection,
        }
    }
}

/// The text of `uri` on `connection`: text contents as they are, binary ones named.
pub(super) async fn read(connection: &Connection, uri: &str) -> Result<String, String> {
    let result = connection
        .service
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .map_err(|e| format!("the server could not read {uri}: {e}"))?;
    let contents = serde_json::to_value(&result).unwrap_or_default()["contents"].clone();
    let parts: Vec<String> = contents
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| match c["text"].as_str() {
            Some(text) => text.to_owned(),
            None => format!(
                "[binary resource {} ({})]",
                c["uri"].as_str().unwrap_or(uri),
                c["mimeType"].as_str().unwrap_or("unknown type")
            ),
        })
        .collect();
    Ok(parts.join("\n"))
}

impl Tool for ResourceTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"uri": {"type": "string",
            "description": "The resource's URI, as listed."}}, "required": ["uri"]})
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let uri = input.get("uri").and_then(Value::as_str).unwrap_or_default();
        (uri.to_owned(), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let Some(uri) = input.get("uri").and_then(Value::as_str) else {
                return Err(ToolError::failed("`uri` is required: the resource's URI."));
            };
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(&self.name, vec![uri.to_owned()])],
                title: format!("Read {uri}"),
                ..Default::default()
            })
            .await?;
            ctx.started();
            let output = read(&self.connection, uri)
                .await
                .map_err(ToolError::failed)?;
            Ok(ToolOutput {
                title: uri.to_owned(),
                output,
                ..ToolOutput::default()
            })
        })
    }
}
