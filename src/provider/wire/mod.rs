//! The wire formats, in one folder: the one client every streamed format shares (the request
//! sent with retries to the provider's endpoint, then its server-sent events read by the
//! format's parser), each format in a file of its own saying only what differs (its path,
//! body, key, parser, public address and model-listing probe), and `spec`, the one dispatch on
//! the provider API. A new wire is one file here, one `ProviderApi` variant, one arm of `spec`.

pub mod anthropic;
pub mod openai;
pub mod responses;

use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;
use reqwest::RequestBuilder;
use serde_json::Value;

use crate::config::ProviderApi;
use crate::provider::http::{self, Endpoint, RetryPolicy};
use crate::provider::sse::{self, SseParser};
use crate::provider::{EventStream, ModelClient, ModelRequest, ProviderError};

/// What one wire format writes and reads.
pub trait Wire: Send + Sync + 'static {
    /// Where requests go, under the provider's base URL (`/chat/completions`).
    const PATH: &'static str;
    /// Its provider's public address, when the config and the environment name none.
    const PUBLIC_URL: &'static str;
    /// Where a free request lists the provider's models (`tandem doctor` asks it).
    const MODELS_PATH: &'static str = "/models";
    type Parser: SseParser;
    /// The request's JSON body.
    fn body(request: &ModelRequest) -> Value;
    /// The request with the API key and the format's own headers.
    fn authorise(builder: RequestBuilder, key: Option<&str>) -> RequestBuilder;
    /// A parser for one answer of `provider`.
    fn parser(provider: String) -> Self::Parser;
    /// Makes the body consistent after the model's options were merged into it.
    fn adjust(body: &mut Value) {
        let _ = body;
    }
}

/// What the rest of Tandem needs of a wire without naming its type.
#[derive(Clone, Copy)]
pub struct WireSpec {
    pub public_url: &'static str,
    pub models_path: &'static str,
    /// The request with the key as the wire takes it.
    pub authorise: fn(RequestBuilder, Option<&str>) -> RequestBuilder,
    /// A client of the wire for a provider.
    pub client: fn(Target) -> Arc<dyn ModelClient>,
}

impl WireSpec {
    const fn of<W: Wire>() -> Self {
        WireSpec {
            public_url: W::PUBLIC_URL,
            models_path: W::MODELS_PATH,
            authorise: W::authorise,
            client: client_of::<W>,
        }
    }
}

fn client_of<W: Wire>(target: Target) -> Arc<dyn ModelClient> {
    Arc::new(WireClient::<W>::new(target))
}

/// The one dispatch on the provider API: its wire, or None for the scripted models (no wire).
pub fn spec(api: ProviderApi) -> Option<WireSpec> {
    match api {
        ProviderApi::Openai => Some(WireSpec::of::<openai::ChatCompletions>()),
        ProviderApi::Anthropic => Some(WireSpec::of::<anthropic::Messages>()),
        ProviderApi::Responses => Some(WireSpec::of::<responses::Responses>()),
        ProviderApi::Scripted => None,
    }
}

/// The key as a bearer token: how OpenAI's APIs (and every server copying them) take it.
pub fn bearer(builder: RequestBuilder, key: Option<&str>) -> RequestBuilder {
    match key {
        Some(key) => builder.bearer_auth(key),
        None => builder,
    }
}

/// Where and how a provider is reached, whatever its wire format.
pub struct Target {
    pub provider: String,
    pub base_url: String,
    pub api_key: Option<String>,
    pub headers: Vec<(String, String)>,
    pub retry: RetryPolicy,
    /// Where the person sets the key, for 401/403 messages.
    pub key_hint: String,
    /// Azure OpenAI: `Some(api-version)`; the model is a deployment in the URL and the key
    /// goes in an `api-key` header.
    pub azure: Option<String>,
}

/// A provider reached over the wire format `W`.
pub struct WireClient<W> {
    target: Target,
    wire: PhantomData<W>,
}

impl<W: Wire> WireClient<W> {
    pub fn new(target: Target) -> Self {
        Self {
            target,
            wire: PhantomData,
        }
    }
}

impl<W: Wire> ModelClient for WireClient<W> {
    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        let target = &self.target;
        Box::pin(async move {
            let base = target.base_url.trim_end_matches('/');
            let url = match &target.azure {
                Some(version) => format!(
                    "{base}/deployments/{}{}?api-version={version}",
                    request.model,
                    W::PATH
                ),
                None => format!("{base}{}", W::PATH),
            };
            let mut body = W::body(&request);
            if let Some(options) = &request.options.body {
                crate::provider::variants::merge(&mut body, options.clone());
                W::adjust(&mut body);
            }
            let endpoint = Endpoint {
                provider: &target.provider,
                model: &request.model,
                url: &url,
                key_hint: &target.key_hint,
                on_retry: request.on_retry.as_ref(),
            };
            let response = http::send(&endpoint, target.retry, || {
                let mut builder = match (&target.azure, target.api_key.as_deref()) {
                    (Some(_), Some(key)) => http::client().post(&url).header("api-key", key),
                    _ => W::authorise(http::client().post(&url), target.api_key.as_deref()),
                };
                for (name, value) in target.headers.iter().chain(&request.options.headers) {
                    builder = builder.header(name, value);
                }
                builder.json(&body)
            })
            .await?;
            let parser = W::parser(target.provider.clone());
            Ok(sse::stream(response, parser, target.retry.idle_timeout))
        })
    }
}
