//! Streaming model clients behind one trait, and the resolution of `provider/model` names
//! from the config and the environment. Knows wire formats; knows nothing of sessions or ACP.

pub mod aside;
pub mod catalog;
pub mod choose;
mod estimate;
pub mod family;
mod http;
mod limits;
pub use limits::RateWindow;
pub mod resolve;
mod scripted;
pub use estimate::{estimate_tokens, spec_chars, tokens};
mod sse;
pub mod variants;
pub mod wire;

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use serde_json::Value;

use crate::message::{FinishReason, ReasoningItem, Source, Usage};

pub use catalog::refresh as catalog_refresh;
pub use http::RetryPolicy;
pub use http::client as http_client;
pub use http::error_detail as http_error_detail;
pub use resolve::{ResolvedModel, abilities, available_models, default_model_name, resolve};
pub use scripted::Script;

/// One call to a model: the whole conversation and the tools it may use.
#[derive(Debug, Clone, Default)]
pub struct ModelRequest {
    /// The id the API knows the model by.
    pub model: String,
    /// Shared by every step of a turn.
    pub system: Arc<[String]>,
    pub messages: Vec<ModelMessage>,
    pub tools: Arc<[ToolSpec]>,
    pub max_output_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// Set (to the session's id) when the request should carry prompt-caching hints: Anthropic
    /// `cache_control` breakpoints, OpenAI's `prompt_cache_key`.
    pub cache_key: Option<String>,
    /// Told when the request fails and is tried again, and when a retried one gets through.
    pub on_retry: Option<RetryObserver>,
    /// The model's own options and the chosen variant's (merged into the body as sent).
    pub options: variants::RequestOptions,
    /// Offer the provider's own web search (its wire must have one: see `hosted_search`).
    pub hosted_search: bool,
}

/// Where a retried model request stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RetryEvent {
    /// Attempt `attempt` failed for `message`; the next starts after `delay`.
    Waiting {
        attempt: u32,
        message: String,
        delay: std::time::Duration,
    },
    /// A retried request got its answer.
    Resumed,
    /// The answer's headers reported these limits.
    Limits(Vec<limits::RateWindow>),
}

/// A callback for `RetryEvent`s.
#[derive(Clone)]
pub struct RetryObserver(pub Arc<dyn Fn(RetryEvent) + Send + Sync>);

impl std::fmt::Debug for RetryObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RetryObserver")
    }
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the tool's input object.
    pub parameters: Value,
}

/// One message of the conversation, in a provider-neutral shape.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelMessage {
    User(Vec<UserContent>),
    Assistant(Vec<AssistantContent>),
    ToolResult {
        call_id: String,
        name: String,
        output: String,
        is_error: bool,
        /// Images the tool returned: `(mime, base64 data)`.
        images: Vec<(String, String)>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    Text(String),
    Image { mime: String, data_base64: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum AssistantContent {
    Text(String),
    Reasoning {
        text: String,
        signature: Option<String>,
        /// The Responses API's item for it, sent back as it came.
        item: Option<ReasoningItem>,
    },
    ToolCall {
        id: String,
        name: String,
        input: Value,
    },
}

/// What a model stream yields, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ReasoningDelta(String),
    /// The signature that lets Anthropic accept the reasoning block back.
    ReasoningSignature(String),
    /// A complete Responses reasoning item (after its summary, if it had one).
    ReasoningItem(ReasoningItem),
    /// The model began a tool call; its arguments are still streaming.
    ToolCallStart {
        id: String,
        name: String,
    },
    /// A complete tool call; `arguments` is the raw JSON text the model wrote.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// The provider began a search of its own.
    SearchStarted {
        id: String,
    },
    /// The provider's search ended: what it searched for and the pages it found, or why it
    /// failed.
    SearchDone {
        id: String,
        query: String,
        sources: Vec<Source>,
        error: Option<String>,
    },
    /// The answer's words cite this page.
    Citation(Source),
    Usage(Usage),
    Finish(FinishReason),
}

/// Whether requests to `model` may offer its provider's own web search: never where its wire
/// has none; where `setting` (`websearch.hosted`) says; otherwise only on the providers' own
/// endpoints (`openai` over the Responses API, `anthropic`), which are known to have it.
pub fn hosted_search(model: &ResolvedModel, setting: Option<bool>) -> bool {
    use crate::config::ProviderApi;
    let wire_has_it = matches!(model.api, ProviderApi::Responses | ProviderApi::Anthropic);
    match setting {
        _ if !wire_has_it => false,
        Some(choice) => choice,
        None => matches!(
            (model.provider_id.as_str(), model.api),
            ("openai", ProviderApi::Responses) | ("anthropic", ProviderApi::Anthropic)
        ),
    }
}

pub type EventStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

/// A streaming model client.
pub trait ModelClient: Send + Sync {
    /// Starts the call; retries connection errors, 429 and 5xx before the stream begins.
    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>>;
}

/// Why a model call failed; each message says what to do about it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProviderError {
    /// No credentials or no model: the person must set a key or a config file.
    #[error("{0}")]
    MissingCredentials(String),
    #[error("{provider} rejected the credentials (HTTP {status}): {detail}. Check {key_hint}")]
    Unauthorized {
        provider: String,
        status: u16,
        detail: String,
        key_hint: String,
    },
    #[error(
        "{provider} does not know the model `{model}` (HTTP {status}): {detail}. Check the \"model\" setting in tandem.json"
    )]
    ModelNotFound {
        provider: String,
        model: String,
        status: u16,
        detail: String,
    },
    #[error("{provider} answered HTTP {status}: {detail}")]
    Http {
        provider: String,
        status: u16,
        detail: String,
    },
    #[error("cannot reach {provider} at {url}: {detail}")]
    Connection {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("{provider} stream failed: {detail}")]
    Stream { provider: String, detail: String },
    /// The answer stopped coming: the connection broke, the stream stalled, or it ended before
    /// the model finished. Asking again may well work.
    #[error("{provider} stream broke off: {detail}")]
    Broken { provider: String, detail: String },
    #[error("{0}")]
    Config(String),
}

/// How providers word "the request does not fit the model's window" (lower case).
const OVERFLOW_PHRASES: &[&str] = &[
    "prompt is too long",
    "context_length_exceeded",
    "context length",
    "context window",
    "context size",
    "maximum context",
    "too many tokens",
    "input is too long",
    "reduce the length",
    "request too large",
    "token limit",
];

impl ProviderError {
    /// True when the provider refused the request as too long for the model's window.
    pub fn is_context_overflow(&self) -> bool {
        let detail = match self {
            ProviderError::Http { status: 413, .. } => return true,
            ProviderError::Http {
                status: 400,
                detail,
                ..
            }
            | ProviderError::Stream { detail, .. } => detail.to_lowercase(),
            _ => return false,
        };
        OVERFLOW_PHRASES.iter().any(|p| detail.contains(p))
    }

    /// True when the answer broke off in a way another attempt may mend.
    pub fn is_broken(&self) -> bool {
        matches!(self, ProviderError::Broken { .. })
    }

    /// True when the person must supply or fix credentials (ACP `auth_required`).
    pub fn is_auth(&self) -> bool {
        matches!(
            self,
            ProviderError::MissingCredentials(_) | ProviderError::Unauthorized { .. }
        )
    }
}
