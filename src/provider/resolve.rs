//! Resolving `provider/model` into a ready client: config entries first, then the built-in
//! `openai`, `anthropic` and `scripted` providers fed by the environment.

use std::sync::Arc;
use std::time::Duration;

use super::catalog;
use super::http::RetryPolicy;
use super::scripted::{Script, ScriptedClient};
use super::wire::{self, Target};
use super::{ModelClient, ProviderError};
use crate::auth::{self, env};
use crate::config::{
    LoadedConfig, ModelConfig, ModelCost, ModelLimit, ProviderApi, ProviderConfig, ProviderOptions,
};
use crate::paths;

/// A model ready to call, with what Tandem knows about it.
#[derive(Clone)]
pub struct ResolvedModel {
    pub provider_id: String,
    pub model_id: String,
    /// The id sent to the API.
    pub api_model: String,
    pub display_name: String,
    pub api: ProviderApi,
    pub limit: ModelLimit,
    pub cost: Option<ModelCost>,
    /// Requests carry prompt-caching hints (breakpoints, a cache key).
    pub cache: bool,
    /// How hard its requests are retried, before and (by the session) during a stream.
    pub retry: RetryPolicy,
    pub client: Arc<dyn ModelClient>,
    /// What its requests carry, and its variants (how hard it thinks).
    pub options: super::variants::ModelOptions,
}

impl std::fmt::Debug for ResolvedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedModel")
            .field("provider_id", &self.provider_id)
            .field("model_id", &self.model_id)
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

impl ResolvedModel {
    /// `provider/model`.
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.provider_id, self.model_id)
    }
}

fn config_file_hint() -> String {
    paths::config_dir()
        .join("tandem.json")
        .display()
        .to_string()
}

/// What to do when there is no model at all.
fn no_model_message() -> String {
    format!(
        "No model is configured. Set OPENAI_API_KEY (optionally with OPENAI_BASE_URL) or \
         ANTHROPIC_API_KEY in the environment the editor starts Tandem with, run `tandem auth \
         login`, or set \"model\" and a \"provider\" in {}. To try Tandem without a key, set \
         \"model\": \"scripted/demo\".",
        config_file_hint()
    )
}

/// The model name to use: the config's, or the flagship the catalog's rule picks for the
/// provider whose key is found (`choose`).
pub fn default_model_name(config: &LoadedConfig) -> Option<String> {
    config
        .config
        .model
        .clone()
        .or_else(|| super::choose::by_key().map(|d| d.model))
}

/// `(provider/model, display name)` for every model in the config, then every model the
/// catalog knows that can call tools of each hosted provider a key is found for, plus
/// `current` and the scripted demo, so the editor can offer them.
pub fn available_models(config: &LoadedConfig, current: Option<&str>) -> Vec<(String, String)> {
    let mut models: Vec<(String, String)> = Vec::new();
    for (provider_id, provider) in &config.config.provider {
        for (model_id, model) in &provider.models {
            let id = format!("{provider_id}/{model_id}");
            let name = model.name.clone().unwrap_or_else(|| id.clone());
            models.push((id, name));
        }
    }
    let today = catalog::today();
    for hosted in keyed_providers(config) {
        let offered = catalog::models(hosted.id).filter(|(_, m)| m.tools && m.is_current(&today));
        for (model_id, model) in offered {
            let id = format!("{}/{model_id}", hosted.id);
            if !models.iter().any(|(m, _)| *m == id) {
                models.push((id, model.name.clone()));
            }
        }
    }
    for id in current.into_iter().chain(config.config.model.as_deref()) {
        if !models.iter().any(|(m, _)| m == id) {
            models.push((id.to_owned(), id.to_owned()));
        }
    }
    if !models.iter().any(|(m, _)| m == "scripted/demo") {
        models.push(("scripted/demo".into(), "Scripted demo (no network)".into()));
    }
    models
}

/// The request options and variants of the model `name` (`provider/model`), without
/// reaching for its credentials; empty for a name that is not `provider/model`.
pub fn model_options(config: &LoadedConfig, name: &str) -> super::variants::ModelOptions {
    let Some((provider_id, model_id)) = name.split_once('/') else {
        return Default::default();
    };
    let provider = config
        .config
        .provider
        .get(provider_id)
        .cloned()
        .unwrap_or_default();
    let api = api_for_model(provider_id, &provider, model_id);
    let model = provider.models.get(model_id).cloned().unwrap_or_default();
    let api_model = model.id.clone().unwrap_or_else(|| model_id.to_owned());
    super::variants::ModelOptions::of(api, &api_model, &model.variants)
}

/// The hosted providers a key is found for: in the environment, stored, or in the config.
pub fn keyed_providers(config: &LoadedConfig) -> Vec<&'static auth::Hosted> {
    let keyed = auth::providers_with_keys();
    let in_config = |id: &str| {
        config
            .config
            .provider
            .get(id)
            .is_some_and(|p| p.options.api_key.as_deref().is_some_and(|k| !k.is_empty()))
    };
    auth::HOSTED
        .iter()
        .filter(|h| in_config(h.id) || keyed.iter().any(|k| k.id == h.id))
        .collect()
}

/// What the catalog says the model `name` (`provider/model`) can do, when it knows it.
pub fn abilities(config: &LoadedConfig, name: &str) -> Option<&'static catalog::CatalogModel> {
    let (provider_id, model_id) = name.split_once('/')?;
    let api_model = config
        .config
        .provider
        .get(provider_id)
        .and_then(|p| p.models.get(model_id))
        .and_then(|m| m.id.clone())
        .unwrap_or_else(|| model_id.to_owned());
    catalog::model(provider_id, &api_model)
}

/// Where a provider with no wire of its own (the scripted models) would be reached.
const OPENAI_URL: &str = "https://api.openai.com/v1";

/// Azure OpenAI's `api-version` unless the provider's options name another.
const AZURE_API_VERSION: &str = "2024-10-21";

/// Resolves `requested` (or the default model) against the config and environment.
pub fn resolve(
    config: &LoadedConfig,
    requested: Option<&str>,
) -> Result<ResolvedModel, ProviderError> {
    let name = match requested {
        Some(name) => name.to_owned(),
        None => default_model_name(config)
            .ok_or_else(|| ProviderError::MissingCredentials(no_model_message()))?,
    };
    let Some((provider_id, model_id)) = name.split_once('/') else {
        return Err(ProviderError::Config(format!(
            "model `{name}` must be written as provider/model, e.g. \"openai/{}\"",
            catalog::defaults::for_provider("openai", &catalog::today())
                .map_or("MODEL", |d| d.flagship)
        )));
    };
    let configured = config.config.provider.get(provider_id);
    let builtin = provider_id == "scripted"
        || auth::hosted(provider_id).is_some()
        || auth::local(provider_id).is_some();
    if configured.is_none() && !builtin {
        let known: Vec<&str> = config.config.provider.keys().map(String::as_str).collect();
        return Err(ProviderError::Config(format!(
            "model `{name}` names the provider `{provider_id}`, which is not configured; \
             add it under \"provider\" in {} (configured: {})",
            config_file_hint(),
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        )));
    }
    let provider = configured.cloned().unwrap_or_default();
    let api = api_for_model(provider_id, &provider, model_id);
    let model: ModelConfig = provider.models.get(model_id).cloned().unwrap_or_default();
    let limit = model
        .limit
        .unwrap_or_else(|| catalog::limit(provider_id, model_id));
    let api_model = model.id.clone().unwrap_or_else(|| model_id.to_owned());
    let display_name = match (&model.name, api) {
        (Some(n), ProviderApi::Scripted) => format!("{n} (scripted, no network)"),
        (Some(n), _) => n.clone(),
        (None, ProviderApi::Scripted) => format!("Scripted {model_id} (no network)"),
        (None, _) => name.clone(),
    };
    let retry = retry_policy(&provider.options);
    let client = build_client(provider_id, model_id, api, &provider, retry)?;
    let options = super::variants::ModelOptions::of(api, &api_model, &model.variants);
    Ok(ResolvedModel {
        provider_id: provider_id.to_owned(),
        model_id: model_id.to_owned(),
        api_model,
        display_name,
        api,
        limit,
        cost: model.cost.or_else(|| catalog::cost(provider_id, model_id)),
        cache: provider.options.cache != Some(false),
        retry,
        client,
        options,
    })
}

/// The wire format a provider speaks: its config's `api`, else by its id.
pub fn api_of(provider_id: &str, provider: &ProviderConfig) -> ProviderApi {
    provider.api.unwrap_or(match provider_id {
        "anthropic" => ProviderApi::Anthropic,
        "scripted" => ProviderApi::Scripted,
        _ => ProviderApi::Openai,
    })
}

/// The wire format for one model: the provider's, except that OpenAI's own reasoning and
/// codex models default to the Responses API (their reasoning is lost over Chat Completions).
pub fn api_for_model(provider_id: &str, provider: &ProviderConfig, model_id: &str) -> ProviderApi {
    let api = api_of(provider_id, provider);
    let reasoning =
        super::family::ModelFamily::of(model_id) == super::family::ModelFamily::OpenAiReasoning;
    let responses_only = catalog::model("openai", model_id).is_some_and(|m| m.responses_only);
    if provider.api.is_none() && provider_id == "openai" && (reasoning || responses_only) {
        return ProviderApi::Responses;
    }
    api
}

/// Where a provider answers and the key it is called with.
pub struct Address {
    pub base_url: String,
    pub api_key: Option<String>,
}

/// The config's `baseURL`, else the hosted provider's environment variable, else its public
/// address; the config's `apiKey`, else the environment, else a stored key.
pub fn address(provider_id: &str, provider: &ProviderConfig) -> Address {
    let options = &provider.options;
    let hosted = auth::hosted(provider_id);
    let public = match (hosted, api_of(provider_id, provider)) {
        (Some(hosted), _) => hosted.base_url,
        (None, api) => wire::spec(api).map_or(OPENAI_URL, |w| w.public_url),
    };
    Address {
        base_url: options
            .base_url
            .clone()
            .or_else(|| hosted.and_then(|h| h.env_url).and_then(env))
            .or_else(|| {
                (provider_id == "azure")
                    .then(auth::azure_resource_url)
                    .flatten()
            })
            .or_else(|| auth::local(provider_id))
            .unwrap_or_else(|| public.to_owned()),
        api_key: options
            .api_key
            .clone()
            .filter(|k| !k.is_empty())
            .or_else(|| auth::find_key(provider_id).map(|(key, _)| key)),
    }
}

/// How hard requests to a provider are retried, from its options (times in milliseconds; unset
/// ones keep the defaults).
fn retry_policy(options: &ProviderOptions) -> RetryPolicy {
    let defaults = RetryPolicy::default();
    let ms = |value: Option<u64>, default: Duration| value.map_or(default, Duration::from_millis);
    RetryPolicy {
        max_retries: options.max_retries.unwrap_or(defaults.max_retries),
        initial_delay: ms(options.retry_delay, defaults.initial_delay),
        first_byte_timeout: ms(options.timeout, defaults.first_byte_timeout),
        idle_timeout: ms(options.chunk_timeout, defaults.idle_timeout),
        total_timeout: ms(options.total_timeout, defaults.total_timeout),
        ..defaults
    }
}

fn build_client(
    provider_id: &str,
    model_id: &str,
    api: ProviderApi,
    provider: &ProviderConfig,
    retry: RetryPolicy,
) -> Result<Arc<dyn ModelClient>, ProviderError> {
    let options = &provider.options;
    let headers: Vec<(String, String)> = options
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let hosted = auth::hosted(provider_id);
    let Address { base_url, api_key } = address(provider_id, provider);
    let key_hint = match hosted {
        Some(h) => format!(
            "{}, `tandem auth login {provider_id}` or provider.{provider_id}.options.apiKey in \
             tandem.json",
            h.env_key
        ),
        None => format!(
            "`tandem auth login {provider_id}` or provider.{provider_id}.options.apiKey in \
             tandem.json"
        ),
    };
    // The hosted APIs always need a key; local OpenAI-compatible servers often need none.
    if let Some(h) = hosted
        && api_key.is_none()
        && api != ProviderApi::Scripted
    {
        return Err(ProviderError::MissingCredentials(format!(
            "The model {provider_id}/{model_id} needs an API key: set {} in the environment \
             the editor starts Tandem with, run `tandem auth login {provider_id}` in a \
             terminal, or set provider.{provider_id}.options.apiKey in {}.",
            h.env_key,
            config_file_hint()
        )));
    }
    if base_url.is_empty() {
        return Err(ProviderError::Config(format!(
            "The provider {provider_id} has no address: set AZURE_RESOURCE_NAME (or \
             AZURE_BASE_URL) in the environment, or provider.{provider_id}.options.baseURL in {}",
            config_file_hint()
        )));
    }
    let target = Target {
        provider: provider_id.to_owned(),
        base_url,
        api_key,
        headers,
        retry,
        key_hint,
        azure: (provider_id == "azure").then(|| {
            options
                .api_version
                .clone()
                .unwrap_or_else(|| AZURE_API_VERSION.to_owned())
        }),
    };
    Ok(match wire::spec(api) {
        Some(wire) => (wire.client)(target),
        None => {
            let script = match &options.script {
                Some(path) => Script::from_file(path)?,
                None => Script::demo(),
            };
            Arc::new(ScriptedClient { script })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn loaded(json: &str) -> LoadedConfig {
        LoadedConfig {
            config: Config::from_json_str(json).unwrap(),
            ..Default::default()
        }
    }

    #[test]
    fn configured_openai_compatible_provider_resolves() {
        let config = loaded(
            r#"{"model": "local/qwen", "provider": {"local": {"api": "openai",
                "options": {"baseURL": "http://127.0.0.1:1/v1"},
                "models": {"qwen": {"name": "Qwen", "limit": {"context": 32768, "output": 8192}}}}}}"#,
        );
        let model = resolve(&config, None).unwrap();
        assert_eq!(model.full_id(), "local/qwen");
        assert_eq!(model.display_name, "Qwen");
        assert_eq!(model.limit.context, Some(32768));
        assert_eq!(model.api, ProviderApi::Openai);
    }

    #[test]
    fn scripted_models_say_so() {
        let model = resolve(&LoadedConfig::default(), Some("scripted/demo")).unwrap();
        assert_eq!(model.display_name, "Scripted demo (no network)");
    }

    #[test]
    fn unknown_provider_and_bad_names_are_explained() {
        let config = LoadedConfig::default();
        let err = resolve(&config, Some("nope/x")).unwrap_err().to_string();
        assert!(err.contains("provider `nope`"), "{err}");
        let err = resolve(&config, Some("justmodel")).unwrap_err().to_string();
        assert!(err.contains("provider/model"), "{err}");
    }
}
