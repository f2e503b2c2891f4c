//! `"websearch"`: the search service the `websearch` tool asks when the session's provider
//! offers no search of its own: which one, its key (or `{env:…}`), and where it answers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A search service with a documented JSON API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchService {
    /// Brave Search (`X-Subscription-Token`; `BRAVE_API_KEY`).
    Brave,
    /// Exa (`x-api-key`; `EXA_API_KEY`).
    Exa,
    /// Tavily (`Authorization: Bearer`; `TAVILY_API_KEY`).
    Tavily,
    /// A SearXNG instance the person runs (no key; its `baseURL` is required, with `json`
    /// among its `search.formats`).
    Searxng,
}

impl SearchService {
    pub const ALL: [SearchService; 4] = [Self::Brave, Self::Exa, Self::Tavily, Self::Searxng];

    pub fn name(self) -> &'static str {
        match self {
            Self::Brave => "brave",
            Self::Exa => "exa",
            Self::Tavily => "tavily",
            Self::Searxng => "searxng",
        }
    }

    /// The environment variable its key is read from when the config gives none.
    pub fn key_env(self) -> Option<&'static str> {
        match self {
            Self::Brave => Some("BRAVE_API_KEY"),
            Self::Exa => Some("EXA_API_KEY"),
            Self::Tavily => Some("TAVILY_API_KEY"),
            Self::Searxng => None,
        }
    }

    /// Where it answers unless `baseURL` says otherwise.
    pub fn default_base(self) -> Option<&'static str> {
        match self {
            Self::Brave => Some("https://api.search.brave.com"),
            Self::Exa => Some("https://api.exa.ai"),
            Self::Tavily => Some("https://api.tavily.com"),
            Self::Searxng => None,
        }
    }
}

/// `"websearch": {"service": "brave", "apiKey": "{env:BRAVE_API_KEY}"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchConfig {
    /// Which service (without one: the first whose key is in the environment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<SearchService>,
    /// Its key (default: the service's environment variable).
    #[serde(rename = "apiKey", default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Where it answers (required for SearXNG).
    #[serde(rename = "baseURL", default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// How many results a search returns by default (at most 20; default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_results: Option<usize>,
    /// Use the provider's own search where it has one (OpenAI's Responses API, Anthropic);
    /// default: on for OpenAI's and Anthropic's own endpoints, off for other servers of
    /// their wires. It is used only while `websearch` is allowed without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosted: Option<bool>,
    /// `false` withholds the tool (and the provider's search) even where a key is in the
    /// environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}
