//! The model catalog: every model of the providers Tandem knows by name, with its windows,
//! prices, abilities and status. A snapshot is built in (`data/models.json`, written by
//! `scripts/refresh-catalog` from models.dev or the package registries); `tandem models
//! --refresh` fetches a newer one into the data dir, and the newer of the two is used. Never
//! fetched at start-up.

pub mod defaults;
mod families;
pub mod refresh;

use std::sync::OnceLock;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::config::{ModelCost, ModelLimit};

/// The snapshot built into the binary.
const BUILT_IN: &str = include_str!("../../../data/models.json");
/// The fetched catalog's file name, in the data dir.
pub const FETCHED: &str = "models-catalog.json";

/// A catalog: where it came from, when, and each provider's models by id.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Catalog {
    pub source: String,
    /// `YYYY-MM-DD`: the newer catalog wins.
    pub generated: String,
    /// Each source with its version and date, as the script recorded them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<serde_json::Value>,
    pub providers: IndexMap<String, IndexMap<String, CatalogModel>>,
}

/// One model as the catalog knows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CatalogModel {
    pub name: String,
    /// Tokens; 0 when unknown.
    pub context: u64,
    pub output: u64,
    /// USD per million tokens: input, output, cache read, cache write.
    pub cost: [f64; 4],
    /// It can call tools.
    pub tools: bool,
    /// It reasons before it answers.
    pub reasoning: bool,
    /// It takes files.
    pub attachment: bool,
    /// It takes a temperature.
    pub temperature: bool,
    /// It reads images.
    #[serde(default)]
    pub images: bool,
    /// The reasoning efforts it takes, least first, as its provider names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub efforts: Vec<String>,
    /// An Anthropic model that decides how much to think (`thinking: {type: "adaptive"}`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adaptive: bool,
    /// Served only by OpenAI's Responses API.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub responses_only: bool,
    /// The day its provider retires it (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retires: Option<String>,
    /// The model its provider names as its replacement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
    /// Deprecated or removed, when its provider says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ModelStatus>,
}

/// A model its provider has stopped recommending or serving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelStatus {
    Deprecated,
    Removed,
    /// A status this build does not know; treated as not current.
    #[serde(other)]
    Other,
}

impl CatalogModel {
    /// Offered and chosen today (`YYYY-MM-DD`): no status, not retired, no named successor.
    pub fn is_current(&self, today: &str) -> bool {
        self.status.is_none()
            && self.successor.is_none()
            && self.retires.as_deref().is_none_or(|day| day > today)
    }

    pub fn limit(&self) -> ModelLimit {
        ModelLimit {
            context: (self.context > 0).then_some(self.context),
            input: None,
            output: (self.output > 0).then_some(self.output),
        }
    }

    pub fn price(&self) -> ModelCost {
        let [input, output, cache_read, cache_write] = self.cost;
        ModelCost {
            input,
            output,
            cache_read,
            cache_write,
        }
    }
}

/// The catalog in use: the built-in snapshot, or the fetched one unless it is older. Read once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let built_in: Catalog =
            serde_json::from_str(BUILT_IN).expect("data/models.json is a valid catalog");
        let fetched = std::fs::read_to_string(crate::paths::data_dir().join(FETCHED))
            .ok()
            .and_then(|text| serde_json::from_str::<Catalog>(&text).ok());
        match fetched {
            Some(fetched) if fetched.generated >= built_in.generated => fetched,
            _ => built_in,
        }
    })
}

/// The catalog's entry for `provider`/`model`: its id, or a dated release whose undated name
/// it is (`claude-opus-4-5` for `claude-opus-4-5-20251101`).
pub fn model(provider: &str, model: &str) -> Option<&'static CatalogModel> {
    // Azure's deployments run OpenAI's models, usually under their own names.
    let provider = if provider == "azure" {
        "openai"
    } else {
        provider
    };
    let models = catalog().providers.get(provider)?;
    models.get(model).or_else(|| {
        models
            .iter()
            .find(|(id, _)| undated(id) == model)
            .map(|(_, entry)| entry)
    })
}

/// `id` without a trailing `-YYYYMMDD` release date.
fn undated(id: &str) -> &str {
    match id.rsplit_once('-') {
        Some((name, date)) if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => id,
    }
}

/// Every model the catalog knows of `provider`, by id.
pub fn models(provider: &str) -> impl Iterator<Item = (&'static str, &'static CatalogModel)> {
    catalog()
        .providers
        .get(provider)
        .into_iter()
        .flat_map(|models| models.iter().map(|(id, m)| (id.as_str(), m)))
}

/// The catalog's entry for `model`, else that of the catalog model whose id is the longest
/// prefix of it (a newer release or a variant of a known model takes that model's).
pub fn model_or_family(provider: &str, model_id: &str) -> Option<&'static CatalogModel> {
    model(provider, model_id).or_else(|| families::nearest(provider, model_id))
}

/// The window of a model: the catalog's or its family's (the scripted models get a small
/// one), else unknown.
pub fn limit(provider: &str, model_id: &str) -> ModelLimit {
    match model_or_family(provider, model_id) {
        Some(entry) => entry.limit(),
        None => families::scripted_limit(provider),
    }
}

/// The list prices of a model: the catalog's or its family's.
pub fn cost(provider: &str, model_id: &str) -> Option<ModelCost> {
    model_or_family(provider, model_id).map(CatalogModel::price)
}

/// Today, `YYYY-MM-DD`, for the catalog's dates.
pub fn today() -> String {
    crate::id::iso8601(crate::id::now_ms())[..10].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_snapshot_knows_the_providers_and_their_models() {
        let catalog = catalog();
        for provider in [
            "openai",
            "anthropic",
            "openrouter",
            "google",
            "groq",
            "mistral",
        ] {
            assert!(
                catalog
                    .providers
                    .get(provider)
                    .is_some_and(|m| !m.is_empty()),
                "{provider}"
            );
        }
        let gpt5 = model("openai", "gpt-5").unwrap();
        assert!(gpt5.reasoning && gpt5.tools);
        // A dated release answers to its undated name.
        assert_eq!(
            model("anthropic", "claude-opus-4-5").unwrap().name,
            model("anthropic", "claude-opus-4-5-20251101").unwrap().name
        );
        // Current families, with cache prices.
        let sonnet = model("anthropic", "claude-sonnet-5-5").unwrap();
        assert!(sonnet.adaptive && sonnet.cost[2] > 0.0 && sonnet.cost[3] > 0.0);
        assert!(model("openai", "gpt-5.3-codex").unwrap().responses_only);
        // A release newer than the snapshot gets its family's window and prices.
        assert_eq!(
            limit("anthropic", "claude-sonnet-5-5-20270101").context,
            Some(sonnet.context)
        );
        assert!(cost("local", "qwen").is_none());
        assert_eq!(limit("scripted", "demo").output, Some(8_192));
    }
}
