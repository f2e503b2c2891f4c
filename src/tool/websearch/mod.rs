//! `websearch`: a query, optional allowed or blocked domains, and results as titles, URLs and
//! snippets the model can cite and then fetch, from the search service the person configured
//! (`websearch`, or a service key in the environment). Offered only when one is.

mod services;

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema,
    input_str, parse_input,
};
use crate::config::{Config, SearchService};
use crate::message::Location;
use crate::permission::keys;

/// The tool's name, which a provider's own searches are shown under too.
pub const NAME: &str = "websearch";
/// Results a search returns unless the config or the call says.
const DEFAULT_RESULTS: usize = 8;
/// The most results one search returns.
const MAX_RESULTS: usize = 20;
/// How much of each snippet the model reads.
const SNIPPET_CHARS: usize = 400;

/// The search service a session's `websearch` asks.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchSetup {
    pub service: SearchService,
    key: Option<String>,
    base: String,
    results: usize,
}

/// The service `config` (or the environment) gives; None when there is none, and why.
pub fn configured(config: &Config) -> Result<SearchSetup, String> {
    let block = config.websearch.clone().unwrap_or_default();
    if block.enabled == Some(false) {
        return Err("`websearch.enabled` is false".into());
    }
    let env_key = |service: SearchService| {
        service
            .key_env()
            .and_then(|name| std::env::var(name).ok())
            .filter(|k| !k.is_empty())
    };
    let service = match block.service {
        Some(service) => service,
        None => SearchService::ALL
            .into_iter()
            .find(|s| env_key(*s).is_some())
            .ok_or("no search service is configured and no BRAVE_API_KEY, EXA_API_KEY or TAVILY_API_KEY is set")?,
    };
    let key = block
        .api_key
        .filter(|k| !k.is_empty())
        .or_else(|| env_key(service));
    if service != SearchService::Searxng && key.is_none() {
        return Err(format!(
            "the search service {} has no key (`websearch.apiKey` or {})",
            service.name(),
            service.key_env().unwrap_or_default()
        ));
    }
    let base = block
        .base_url
        .or_else(|| service.default_base().map(str::to_owned))
        .ok_or("a SearXNG instance needs its `websearch.baseURL`")?;
    Ok(SearchSetup {
        service,
        key,
        base,
        results: block
            .max_results
            .unwrap_or(DEFAULT_RESULTS)
            .clamp(1, MAX_RESULTS),
    })
}

/// The `websearch` tool, bound to one service.
pub struct WebSearchTool {
    setup: SearchSetup,
}

impl WebSearchTool {
    pub fn new(setup: SearchSetup) -> Self {
        Self { setup }
    }
}

/// The `websearch` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchInput {
    /// What to search for.
    pub query: String,
    /// Only results from these domains (and their subdomains).
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// No results from these domains (and their subdomains).
    #[serde(default)]
    pub blocked_domains: Vec<String>,
    /// How many results (default 8, at most 20).
    #[serde(default)]
    pub max_results: Option<usize>,
}

impl Tool for WebSearchTool {
    fn name(&self) -> &'static str {
        NAME
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["search", "websearchtool"]
    }

    fn claude_name(&self) -> Option<String> {
        Some("WebSearch".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Fetch
    }

    fn description(&self) -> &'static str {
        "Searches the web and returns results as titles, URLs and snippets. Use it for what the \
         project does not hold: current documentation, error messages, releases. Cite the URLs \
         you rely on, and read a page whole with webfetch. `allowed_domains` keeps only results \
         from those domains; `blocked_domains` drops theirs."
    }

    fn parameters(&self) -> Value {
        input_schema::<WebSearchInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let query = input_str(input, "query").unwrap_or_default();
        (format!("Search: {query}"), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: WebSearchInput = parse_input(self.name(), input)?;
            let text = input.query.trim();
            if text.is_empty() {
                return Err(ToolError::failed("The search query is empty."));
            }
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(keys::WEBSEARCH, vec![text.to_owned()])],
                title: format!("Search the web: {text}"),
                ..Default::default()
            })
            .await?;
            ctx.started();
            let clean = |domains: &[String]| -> Vec<String> {
                domains
                    .iter()
                    .map(|d| d.trim().trim_start_matches("*.").to_ascii_lowercase())
                    .filter(|d| !d.is_empty())
                    .collect()
            };
            let (allowed, blocked) = (clean(&input.allowed_domains), clean(&input.blocked_domains));
            let count = input
                .max_results
                .unwrap_or(self.setup.results)
                .clamp(1, MAX_RESULTS);
            let query = services::Query {
                text,
                allowed: &allowed,
                blocked: &blocked,
                count,
            };
            let setup = &self.setup;
            let service = (setup.service, setup.base.as_str(), setup.key.as_deref());
            let hits: Vec<services::Hit> = services::search(service, &query)
                .await?
                .into_iter()
                .filter(|hit| admitted(&hit.url, &allowed, &blocked))
                .take(count)
                .collect();
            let name = setup.service.name();
            Ok(ToolOutput {
                title: format!("Search: {text} ({} results)", hits.len()),
                output: format_hits(text, name, &hits),
                metadata: json!({"service": name,
                    "urls": hits.iter().map(|h| h.url.as_str()).collect::<Vec<_>>()}),
                ..Default::default()
            })
        })
    }
}

/// Whether `url`'s host passes the domain filters.
fn admitted(url: &str, allowed: &[String], blocked: &[String]) -> bool {
    let Some(host) = reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
    else {
        return false;
    };
    let under = |domain: &String| host == *domain || host.ends_with(&format!(".{domain}"));
    (allowed.is_empty() || allowed.iter().any(under)) && !blocked.iter().any(under)
}

/// The results as the model reads them.
fn format_hits(query: &str, service: &str, hits: &[services::Hit]) -> String {
    if hits.is_empty() {
        return format!("No results for \"{query}\" ({service}).");
    }
    let mut text = format!("Results for \"{query}\" ({service}):\n");
    for (n, hit) in hits.iter().enumerate() {
        let title = if hit.title.is_empty() {
            &hit.url
        } else {
            &hit.title
        };
        text.push_str(&format!("\n{}. {title}\n   {}\n", n + 1, hit.url));
        if let Some(date) = &hit.published {
            text.push_str(&format!("   ({date})\n"));
        }
        let snippet: String = hit.snippet.chars().take(SNIPPET_CHARS).collect();
        let snippet = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
        if !snippet.is_empty() {
            text.push_str(&format!("   {snippet}\n"));
        }
    }
    text.push_str("\nCite the URLs you use; read a page whole with webfetch.");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_admit_their_subdomains_and_blocks_win() {
        let allowed = vec!["docs.rs".to_owned()];
        assert!(admitted("https://docs.rs/tokio", &allowed, &[]));
        assert!(admitted("https://api.docs.rs/x", &allowed, &[]));
        assert!(!admitted("https://notdocs.rs/x", &allowed, &[]));
        assert!(!admitted("https://docs.rs/x", &[], &allowed));
        assert!(!admitted("not a url", &[], &[]));
    }
}
