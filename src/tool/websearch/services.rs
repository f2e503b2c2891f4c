//! The search services, each through its documented JSON API: Brave Search, Exa, Tavily and a
//! SearXNG instance. Each gets the query (with the domain filters it takes) and gives back
//! titles, URLs and snippets; an HTTP error is told with the service's own words.

use serde_json::{Value, json};

use crate::config::SearchService;
use crate::tool::ToolError;

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub title: String,
    pub url: String,
    pub snippet: String,
    pub published: Option<String>,
}

/// A search as asked.
pub struct Query<'a> {
    pub text: &'a str,
    pub allowed: &'a [String],
    pub blocked: &'a [String],
    pub count: usize,
}

impl Query<'_> {
    /// The query with `site:` operators for the services that filter that way.
    fn with_sites(&self) -> String {
        let mut text = self.text.to_owned();
        match self.allowed {
            [] => {}
            [one] => text.push_str(&format!(" site:{one}")),
            many => {
                let sites: Vec<String> = many.iter().map(|d| format!("site:{d}")).collect();
                text.push_str(&format!(" ({})", sites.join(" OR ")));
            }
        }
        for domain in self.blocked {
            text.push_str(&format!(" -site:{domain}"));
        }
        text
    }
}

/// Asks `service` at `base` (with `key`) for `query`'s results.
pub async fn search(
    (service, base, key): (SearchService, &str, Option<&str>),
    query: &Query<'_>,
) -> Result<Vec<Hit>, ToolError> {
    let client = crate::provider::http_client();
    let base = base.trim_end_matches('/');
    let key = key.unwrap_or_default();
    let request = match service {
        SearchService::Brave => client
            .get(with_query(
                &format!("{base}/res/v1/web/search"),
                &[
                    ("q", &query.with_sites()),
                    ("count", &query.count.to_string()),
                ],
            )?)
            .header("X-Subscription-Token", key)
            .header("Accept", "application/json"),
        SearchService::Exa => client
            .post(format!("{base}/search"))
            .header("x-api-key", key)
            .json(&json!({"query": query.text, "numResults": query.count,
                "includeDomains": query.allowed, "excludeDomains": query.blocked,
                "contents": {"highlights": true}})),
        SearchService::Tavily => client.post(format!("{base}/search")).bearer_auth(key).json(
            &json!({"query": query.text, "max_results": query.count,
                "include_domains": query.allowed, "exclude_domains": query.blocked,
                "search_depth": "basic"}),
        ),
        SearchService::Searxng => client.get(with_query(
            &format!("{base}/search"),
            &[("q", &query.with_sites()), ("format", "json")],
        )?),
    };
    let name = service.name();
    let response = request.send().await.map_err(|e| {
        let why = crate::provider::http_error_detail(&e);
        ToolError::failed(format!(
            "The search service {name} could not be reached: {why}"
        ))
    })?;
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    if !status.is_success() {
        let said = crate::utf8::one_line(&body, 300).unwrap_or_default();
        let hint = match (service, status.as_u16()) {
            (SearchService::Searxng, 403) => {
                " (a SearXNG instance answers JSON only with `json` in its settings.yml \
                 `search.formats`)"
            }
            (_, 401 | 403) => " (check its key)",
            _ => "",
        };
        return Err(ToolError::failed(format!(
            "The search service {name} answered HTTP {status}{hint}: {said}"
        )));
    }
    let value: Value = serde_json::from_str(&body).map_err(|e| {
        ToolError::failed(format!(
            "The search service {name} answered something other than JSON: {e}"
        ))
    })?;
    Ok(read(service, &value))
}

/// `base` with `pairs` as its query string.
fn with_query(base: &str, pairs: &[(&str, &str)]) -> Result<url::Url, ToolError> {
    let mut url = url::Url::parse(base).map_err(|e| {
        ToolError::failed(format!(
            "The search service's URL `{base}` is not valid: {e}"
        ))
    })?;
    url.query_pairs_mut().extend_pairs(pairs);
    Ok(url)
}

/// The results in a service's answer.
fn read(service: SearchService, value: &Value) -> Vec<Hit> {
    let list = match service {
        SearchService::Brave => &value["web"]["results"],
        _ => &value["results"],
    };
    let text = |v: &Value| v.as_str().unwrap_or_default().trim().to_owned();
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let url = text(&item["url"]);
            if url.is_empty() {
                return None;
            }
            let snippet = match service {
                SearchService::Brave => text(&item["description"]),
                SearchService::Exa => {
                    let highlights: Vec<String> = item["highlights"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(text)
                        .collect();
                    match highlights.is_empty() {
                        true => text(&item["text"]),
                        false => highlights.join(" … "),
                    }
                }
                SearchService::Tavily | SearchService::Searxng => text(&item["content"]),
            };
            let published = ["publishedDate", "age", "page_age"]
                .iter()
                .map(|k| text(&item[*k]))
                .find(|s| !s.is_empty());
            Some(Hit {
                title: text(&item["title"]),
                url,
                snippet,
                published,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_services_answer_is_read_and_site_filters_are_spelled() {
        let brave = json!({"web": {"results": [{"title": "T", "url": "https://a.dev/x",
            "description": "about x", "age": "2 days ago"}]}});
        assert_eq!(
            read(SearchService::Brave, &brave),
            [Hit {
                title: "T".into(),
                url: "https://a.dev/x".into(),
                snippet: "about x".into(),
                published: Some("2 days ago".into())
            }]
        );
        let exa = json!({"results": [{"title": "E", "url": "https://e.dev", "highlights": ["one", "two"]}]});
        assert_eq!(read(SearchService::Exa, &exa)[0].snippet, "one … two");
        let allowed = ["docs.rs".to_owned(), "crates.io".to_owned()];
        let blocked = ["spam.com".to_owned()];
        let query = Query {
            text: "tokio",
            allowed: &allowed,
            blocked: &blocked,
            count: 5,
        };
        assert_eq!(
            query.with_sites(),
            "tokio (site:docs.rs OR site:crates.io) -site:spam.com"
        );
    }
}
