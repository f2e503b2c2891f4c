//! The model catalog: every model of the providers Tandem knows by name, with its windows,
//! prices and abilities, from models.dev's data. A snapshot is built in (`data/models.json`,
//! written by `scripts/refresh-catalog`); `tandem models --refresh` fetches a newer one into
//! the data dir, and the newer of the two is used. Never fetched at start-up.

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
    pub providers: IndexMap<String, IndexMap<String, CatalogModel>>,
}

/// One model as the catalog knows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

impl CatalogModel {
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
/// it is (`claude-opus-4-1` for `claude-opus-4-1-20250805`).
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

/// The window of a model: the catalog's, else its family's (the scripted models get a small
/// one), else unknown.
pub fn limit(provider: &str, model_id: &str) -> ModelLimit {
    match model(provider, model_id) {
        Some(entry) => entry.limit(),
        None => families::limit(provider, model_id),
    }
}

/// The list prices of a model: the catalog's, else its family's.
pub fn cost(provider: &str, model_id: &str) -> Option<ModelCost> {
    match model(provider, model_id) {
        Some(entry) => Some(entry.price()),
        None => families::cost(provider, model_id),
    }
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
        assert_eq!(gpt5.context, 400_000);
        // A dated release answers to its undated name.
        assert_eq!(
            model("anthropic", "claude-opus-4-1").unwrap().name,
            model("anthropic", "claude-opus-4-1-20250805").unwrap().name
        );
        // A family newer than the snapshot still gets its window and prices.
        assert_eq!(
            limit("anthropic", "claude-sonnet-4-5").context,
            Some(200_000)
        );
        assert!(cost("anthropic", "claude-haiku-4-5").is_some());
        assert!(cost("local", "qwen").is_none());
    }
}
