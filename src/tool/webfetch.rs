//! `webfetch`: GETs an http(s) URL (5 MB cap, 30 s default timeout) and returns it as
//! markdown, text or raw HTML.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema,
    input_str, parse_input,
};
use crate::message::Location;
use crate::permission::keys;

const MAX_BYTES: usize = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT_S: u64 = 30;
const MAX_TIMEOUT_S: u64 = 120;

pub struct WebFetchTool;

/// How to return the page (default markdown).
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Markdown,
    Text,
    Html,
}

/// The `webfetch` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// The http(s) URL to fetch.
    pub url: String,
    /// How to return the page (default markdown).
    #[serde(default)]
    pub format: Format,
    /// Seconds to wait (default 30, at most 120).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub timeout: Option<u64>,
}

impl Tool for WebFetchTool {
    fn name(&self) -> &'static str {
        "webfetch"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["fetch", "fetchurl", "readurl"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("WebFetch".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Fetch
    }

    fn description(&self) -> &'static str {
        "Fetches a web page (http or https) and returns it as markdown (default), text or html. \
         `timeout` is in seconds (default 30, at most 120); pages over 5 MB are refused."
    }

    fn parameters(&self) -> Value {
        input_schema::<WebFetchInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        (
            input_str(input, "url").unwrap_or_default().to_owned(),
            Vec::new(),
        )
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: WebFetchInput = parse_input(self.name(), input)?;
            let url = reqwest::Url::parse(&input.url)
                .map_err(|e| ToolError::failed(format!("Invalid URL `{}`: {e}", input.url)))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(ToolError::failed(format!(
                    "Only http and https URLs can be fetched, not `{}`.",
                    url.scheme()
                )));
            }
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(keys::WEBFETCH, vec![input.url.clone()])],
                title: format!("Fetch {}", input.url),
                ..Default::default()
            })
            .await?;
            ctx.started();
            let timeout = Duration::from_secs(
                input
                    .timeout
                    .unwrap_or(DEFAULT_TIMEOUT_S)
                    .min(MAX_TIMEOUT_S),
            );
            let (body, content_type) = tokio::time::timeout(timeout, fetch(url.clone()))
                .await
                .map_err(|_| {
                ToolError::failed(format!(
                    "{} did not answer within {} s.",
                    input.url,
                    timeout.as_secs()
                ))
            })??;
            let is_html = content_type.contains("html") || body.trim_start().starts_with('<');
            let output = match (input.format, is_html) {
                (Format::Html, _) | (_, false) => body,
                (Format::Markdown, true) => htmd::convert(&body).unwrap_or(body),
                (Format::Text, true) => to_text(&body),
            };
            Ok(ToolOutput {
                title: format!("{} ({content_type})", input.url),
                output,
                metadata: json!({"contentType": content_type}),
                ..Default::default()
            })
        })
    }
}

async fn fetch(url: reqwest::Url) -> Result<(String, String), ToolError> {
    let response = crate::provider::http_client()
        .get(url.clone())
        .header(
            "accept",
            "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
        )
        .send()
        .await
        .map_err(|e| {
            let why = crate::provider::http_error_detail(&e);
            ToolError::failed(format!("Cannot fetch {url}: {why}"))
        })?;
    let status = response.status();
    if !status.is_success() {
        return Err(ToolError::failed(format!("{url} answered HTTP {status}.")));
    }
    if response
        .content_length()
        .is_some_and(|n| n as usize > MAX_BYTES)
    {
        return Err(ToolError::failed(format!("{url} is larger than 5 MB.")));
    }
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ToolError::failed(format!("Reading {url} failed: {e}")))?;
        if body.len() + chunk.len() > MAX_BYTES {
            return Err(ToolError::failed(format!("{url} is larger than 5 MB.")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((String::from_utf8_lossy(&body).into_owned(), content_type))
}

/// Markdown without its markup: good enough plain text for a model.
fn to_text(html: &str) -> String {
    let markdown = htmd::convert(html).unwrap_or_else(|_| html.to_owned());
    markdown
        .lines()
        .map(|l| {
            l.trim_start_matches(['#', '>', '*', '-', ' '])
                .replace("**", "")
                .replace('`', "")
        })
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}
