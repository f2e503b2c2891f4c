//! Which model Tandem uses when the person named none: with a key, that provider's flagship by
//! the catalog's rule (`catalog::defaults`), and beside a turn's model the provider's small
//! model for titles and compaction. No model id is written here.

use super::catalog::{self, defaults};
use crate::auth;
use crate::config::LoadedConfig;

/// The providers whose key picks the default, in the order they are tried.
const BY_KEY: [&str; 2] = ["openai", "anthropic"];

/// A default chosen from a key: the model, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDefault {
    /// `provider/model`.
    pub model: String,
    /// `provider/model` of its small model, if the catalog has one.
    pub small: Option<String>,
    pub provider: &'static str,
}

/// The default of the first provider (OpenAI, then Anthropic, then the others Tandem knows by
/// name) whose key is found and whose catalog yields one.
pub fn by_key() -> Option<KeyDefault> {
    let today = catalog::today();
    // The stored keys are read once, not once per provider tried.
    let keyed: Vec<&str> = auth::providers_with_keys().iter().map(|h| h.id).collect();
    let others = auth::HOSTED
        .iter()
        .map(|h| h.id)
        .filter(|id| !BY_KEY.contains(id));
    BY_KEY
        .into_iter()
        .chain(others)
        .filter(|provider| keyed.contains(provider))
        .find_map(|provider| {
            let picked = defaults::for_provider(provider, &today)?;
            Some(KeyDefault {
                model: format!("{provider}/{}", picked.flagship),
                small: picked.small.map(|small| format!("{provider}/{small}")),
                provider,
            })
        })
}

/// The small model beside `turn_model` (`provider/model`): the config's `small_model`, else,
/// when the provider is reached at its public address (no `baseURL` of the config's), the
/// catalog's small model of that provider.
pub fn small_model(config: &LoadedConfig, turn_model: &str) -> Option<String> {
    if let Some(small) = &config.config.small_model {
        return Some(small.clone());
    }
    let (provider, _) = turn_model.split_once('/')?;
    let own_address = config
        .config
        .provider
        .get(provider)
        .is_some_and(|p| p.options.base_url.is_some() || p.api.is_some());
    if own_address || auth::hosted(provider).is_none() {
        return None;
    }
    let picked = defaults::for_provider(provider, &catalog::today())?;
    picked.small.map(|small| format!("{provider}/{small}"))
}
