//! How hard a model thinks: each model's named **variants** (OpenAI reasoning effort, Anthropic
//! thinking budgets), built in for the well-known families and configurable per model, and the
//! options every request to it carries; both are request-body fragments merged into the wire's
//! body (a `headers` key in one is sent as HTTP headers instead).

use indexmap::IndexMap;
use serde_json::{Value, json};

use super::catalog::{self, CatalogModel};
use super::family::ModelFamily;
use crate::config::ProviderApi;

/// A model's request options: what every request carries, and its variants by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelOptions {
    pub base: Option<Value>,
    pub variants: IndexMap<String, Value>,
}

/// What the wire gets for one request: a body fragment and headers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOptions {
    pub body: Option<Value>,
    pub headers: Vec<(String, String)>,
}

impl ModelOptions {
    /// The built-in options of `model_id` spoken to over `api`, with the config's `variants`
    /// over them (a configured name replaces a built-in one).
    pub fn of(api: ProviderApi, model_id: &str, configured: &IndexMap<String, Value>) -> Self {
        let mut options = builtin(api, model_id);
        for (name, value) in configured {
            options.variants.insert(name.clone(), value.clone());
        }
        options
    }

    /// The options of a request made with `variant` (None: the model's default).
    pub fn request(&self, variant: Option<&str>) -> RequestOptions {
        let mut body = self.base.clone();
        if let Some(chosen) = variant.and_then(|v| self.variants.get(v)) {
            match &mut body {
                Some(base) => merge(base, chosen.clone()),
                None => body = Some(chosen.clone()),
            }
        }
        let mut headers = Vec::new();
        if let Some(Value::Object(map)) = &mut body
            && let Some(Value::Object(extra)) = map.remove("headers")
        {
            headers = extra
                .into_iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_owned())))
                .collect();
        }
        RequestOptions { body, headers }
    }
}

/// Merges `top` into `base`: objects key by key, anything else replaced.
pub fn merge(base: &mut Value, top: Value) {
    match (base, top) {
        (Value::Object(base), Value::Object(top)) => {
            for (key, value) in top {
                match base.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, top) => *base = top,
    }
}

/// OpenAI's reasoning efforts (and Anthropic's adaptive ones), least first, for a model the
/// catalog names none for.
const EFFORTS: [&str; 3] = ["low", "medium", "high"];
/// Anthropic thinking budgets, in tokens.
const BUDGETS: [(&str, u64); 3] = [("low", 4_000), ("medium", 10_000), ("high", 32_000)];

/// The catalog's entry for a model spoken to over `api` (its family's, for a newer release).
fn known(api: ProviderApi, model_id: &str) -> Option<&'static CatalogModel> {
    let provider = match api {
        ProviderApi::Anthropic => "anthropic",
        ProviderApi::Openai | ProviderApi::Responses => "openai",
        _ => return None,
    };
    catalog::model_or_family(provider, model_id.rsplit('/').next().unwrap_or(model_id))
}

/// A Claude that decides how much to think: as the catalog says, else (a catalog without the
/// field, or a model newer than it) every Claude from generation 4.6 on.
fn adaptive(known: Option<&CatalogModel>, model_id: &str) -> bool {
    let id = model_id.rsplit('/').next().unwrap_or(model_id);
    known.is_some_and(|k| k.adaptive)
        || catalog::defaults::generation(id).is_some_and(|generation| generation >= (4, 6))
}

/// The efforts the catalog lists for the model, else low, medium and high.
fn efforts(known: Option<&CatalogModel>) -> Vec<String> {
    match known {
        Some(entry) if !entry.efforts.is_empty() => entry.efforts.clone(),
        _ => EFFORTS.iter().map(|e| (*e).to_owned()).collect(),
    }
}

fn builtin(api: ProviderApi, model_id: &str) -> ModelOptions {
    let mut options = ModelOptions::default();
    let known = known(api, model_id);
    match (ModelFamily::of(model_id), api) {
        (ModelFamily::OpenAiReasoning, ProviderApi::Responses) => {
            // Summaries are what the person sees of the model's reasoning.
            options.base = Some(json!({"reasoning": {"summary": "auto"}}));
            for effort in efforts(known) {
                let variant = json!({"reasoning": {"effort": effort}});
                options.variants.insert(effort, variant);
            }
        }
        (ModelFamily::OpenAiReasoning, ProviderApi::Openai) => {
            for effort in efforts(known) {
                let variant = json!({"reasoning_effort": effort});
                options.variants.insert(effort, variant);
            }
        }
        (ModelFamily::ClaudeThinking | ModelFamily::ClaudeInterleaved, ProviderApi::Anthropic)
            if adaptive(known, model_id) =>
        {
            // The model decides how much to think; the effort steers it.
            for effort in efforts(known) {
                let variant =
                    json!({"thinking": {"type": "adaptive"}, "output_config": {"effort": effort}});
                options.variants.insert(effort, variant);
            }
        }
        (
            family @ (ModelFamily::ClaudeThinking | ModelFamily::ClaudeInterleaved),
            ProviderApi::Anthropic,
        ) => {
            for (name, budget) in BUDGETS {
                let mut variant = json!({"thinking": {"type": "enabled", "budget_tokens": budget}});
                if family == ModelFamily::ClaudeInterleaved {
                    variant["headers"] =
                        json!({"anthropic-beta": "interleaved-thinking-2025-05-14"});
                }
                options.variants.insert(name.into(), variant);
            }
        }
        _ => {}
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_get_their_controls() {
        let names = |api, id| -> Vec<String> {
            ModelOptions::of(api, id, &IndexMap::new())
                .variants
                .keys()
                .cloned()
                .collect()
        };
        assert_eq!(
            names(ProviderApi::Responses, "gpt-5"),
            ["minimal", "low", "medium", "high"]
        );
        assert_eq!(
            names(ProviderApi::Openai, "o4-mini"),
            ["low", "medium", "high"]
        );
        assert_eq!(
            names(ProviderApi::Anthropic, "claude-sonnet-4-5"),
            ["low", "medium", "high"]
        );
        // The catalog's efforts, and adaptive thinking where the model has it.
        assert_eq!(
            names(ProviderApi::Responses, "gpt-6.1-sol"),
            ["low", "medium", "high", "xhigh", "max"]
        );
        assert_eq!(
            names(ProviderApi::Anthropic, "claude-sonnet-5-5"),
            ["low", "medium", "high", "xhigh", "max"]
        );
        let adaptive = ModelOptions::of(
            ProviderApi::Anthropic,
            "claude-sonnet-5-5",
            &IndexMap::new(),
        );
        assert_eq!(
            adaptive.request(Some("high")).body,
            Some(json!({"thinking": {"type": "adaptive"}, "output_config": {"effort": "high"}}))
        );
        // A Claude newer than the catalog still thinks, adaptively, by its generation; one
        // before 4.6 by budgets.
        let newer = ModelOptions::of(ProviderApi::Anthropic, "claude-opus-9", &IndexMap::new());
        assert_eq!(
            newer.request(Some("low")).body,
            Some(json!({"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}}))
        );
        assert_eq!(
            names(ProviderApi::Anthropic, "claude-opus-4-5"),
            ["low", "medium", "high"]
        );
        let older = ModelOptions::of(ProviderApi::Anthropic, "claude-opus-4-5", &IndexMap::new());
        assert_eq!(
            older.request(Some("low")).body,
            Some(json!({"thinking": {"type": "enabled", "budget_tokens": 4000}}))
        );
        assert!(names(ProviderApi::Anthropic, "claude-3-5-haiku").is_empty());
        assert!(names(ProviderApi::Openai, "gpt-4.1").is_empty());
        assert!(names(ProviderApi::Openai, "openrouter/llama-3").is_empty());
    }

    #[test]
    fn a_request_carries_the_base_and_the_variant_and_headers_apart() {
        let options = ModelOptions::of(ProviderApi::Responses, "gpt-5", &IndexMap::new());
        assert_eq!(
            options.request(Some("high")).body,
            Some(json!({"reasoning": {"summary": "auto", "effort": "high"}}))
        );
        assert_eq!(
            options.request(None).body,
            Some(json!({"reasoning": {"summary": "auto"}}))
        );
        let claude = ModelOptions::of(ProviderApi::Anthropic, "claude-opus-4-1", &IndexMap::new());
        let high = claude.request(Some("high"));
        assert_eq!(
            high.body,
            Some(json!({"thinking": {"type": "enabled", "budget_tokens": 32000}}))
        );
        assert_eq!(
            high.headers,
            [(
                "anthropic-beta".to_owned(),
                "interleaved-thinking-2025-05-14".to_owned()
            )]
        );
        let mut configured = IndexMap::new();
        configured.insert("max".to_owned(), json!({"reasoning": {"effort": "xhigh"}}));
        let custom = ModelOptions::of(ProviderApi::Responses, "gpt-5", &configured);
        assert_eq!(custom.variants.len(), 5);
        assert_eq!(
            custom.request(Some("max")).body,
            Some(json!({"reasoning": {"summary": "auto", "effort": "xhigh"}}))
        );
    }
}
