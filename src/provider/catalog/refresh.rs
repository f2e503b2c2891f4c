//! `tandem models --refresh`: models.dev's current catalog, read into Tandem's shape (the
//! providers it knows by name, the fields it uses) and kept in the data dir, as
//! `scripts/refresh-catalog` does for the built-in snapshot.

use indexmap::IndexMap;
use serde_json::Value;

use super::{Catalog, CatalogModel, FETCHED, ModelStatus};

/// Where models.dev publishes its catalog.
pub const MODELS_DEV: &str = "https://models.dev/api.json";

/// Fetches the catalog from `url` and stores it; how many models it holds.
pub async fn fetch_and_store(url: &str) -> anyhow::Result<usize> {
    let response = crate::provider::http_client()
        .get(url)
        .timeout(std::time::Duration::from_secs(30))
        .send()
        .await?
        .error_for_status()?;
    let data: Value = response.json().await?;
    let catalog = from_models_dev(&data, url, &crate::id::iso8601(crate::id::now_ms())[..10]);
    let count = catalog.providers.values().map(IndexMap::len).sum();
    if count == 0 {
        anyhow::bail!("{url} listed no models of the providers Tandem knows");
    }
    let dir = crate::paths::data_dir();
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(FETCHED);
    let temp = path.with_extension("json.partial");
    std::fs::write(&temp, serde_json::to_vec(&catalog)?)?;
    std::fs::rename(&temp, &path)?;
    Ok(count)
}

/// models.dev's `{provider: {models: {id: {...}}}}` as a catalog of the providers Tandem knows.
pub fn from_models_dev(data: &Value, source: &str, generated: &str) -> Catalog {
    let mut providers = IndexMap::new();
    for hosted in crate::auth::HOSTED {
        let Some(models) = data
            .pointer(&format!("/{}/models", hosted.id))
            .and_then(Value::as_object)
        else {
            continue;
        };
        let mut entries: IndexMap<String, CatalogModel> = models
            .iter()
            .map(|(id, model)| (id.clone(), entry(id, model)))
            .collect();
        entries.sort_keys();
        providers.insert(hosted.id.to_owned(), entries);
    }
    Catalog {
        source: source.to_owned(),
        generated: generated.to_owned(),
        sources: vec![
            serde_json::json!({"name": "models.dev API", "url": source, "date": generated}),
        ],
        providers,
    }
}

fn entry(id: &str, model: &Value) -> CatalogModel {
    let n = |pointer: &str| model.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let price = |key: &str| model["cost"][key].as_f64().unwrap_or(0.0);
    let flag = |key: &str, default: bool| model[key].as_bool().unwrap_or(default);
    let images = model
        .pointer("/modalities/input")
        .and_then(Value::as_array)
        .is_some_and(|input| input.iter().any(|m| m == "image"));
    CatalogModel {
        name: model["name"].as_str().unwrap_or(id).to_owned(),
        context: n("/limit/context"),
        output: n("/limit/output"),
        cost: [
            price("input"),
            price("output"),
            price("cache_read"),
            price("cache_write"),
        ],
        tools: flag("tool_call", false),
        reasoning: flag("reasoning", false),
        attachment: flag("attachment", false),
        temperature: flag("temperature", true),
        images,
        efforts: efforts(model),
        status: (model["status"] == "deprecated").then_some(ModelStatus::Deprecated),
        ..CatalogModel::default()
    }
}

/// The effort levels of models.dev's `reasoning_options` (`{type: "effort", values}`).
fn efforts(model: &Value) -> Vec<String> {
    let options = model["reasoning_options"].as_array().into_iter().flatten();
    options
        .filter(|o| o["type"] == "effort")
        .flat_map(|o| o["values"].as_array().into_iter().flatten())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn models_dev_data_becomes_a_catalog_of_known_providers() {
        let data = json!({
            "openai": {"models": {"gpt-9": {"id": "gpt-9", "name": "GPT-9", "tool_call": true,
                "reasoning": true, "temperature": false, "status": "deprecated",
                "reasoning_options": [{"type": "effort", "values": ["low", "high"]}],
                "modalities": {"input": ["text", "image"]},
                "cost": {"input": 2, "output": 8, "cache_read": 0.5},
                "limit": {"context": 1000000, "output": 64000}}}},
            "someone-else": {"models": {"x": {}}}
        });
        let catalog = from_models_dev(&data, "test", "2027-01-01");
        assert_eq!(catalog.providers.len(), 1);
        assert_eq!(
            catalog.providers["openai"]["gpt-9"],
            CatalogModel {
                name: "GPT-9".into(),
                context: 1_000_000,
                output: 64_000,
                cost: [2.0, 8.0, 0.5, 0.0],
                tools: true,
                reasoning: true,
                attachment: false,
                temperature: false,
                images: true,
                efforts: vec!["low".into(), "high".into()],
                status: Some(ModelStatus::Deprecated),
                ..CatalogModel::default()
            }
        );
    }
}
