//! Models newer than the catalog: a release or variant of a known model gets that model's
//! windows and prices, found by the longest catalog id that starts it, so a new dated release
//! needs no code and no table.

use super::{CatalogModel, models};
use crate::config::ModelLimit;

/// The catalog model whose id is the longest prefix of `model` ending at a `-`, `.` or `:`.
pub fn nearest(provider: &str, model: &str) -> Option<&'static CatalogModel> {
    let provider = if provider == "azure" {
        "openai"
    } else {
        provider
    };
    models(provider)
        .filter(|(id, _)| {
            model.len() > id.len()
                && model.starts_with(id)
                && matches!(model.as_bytes()[id.len()], b'-' | b'.' | b':')
        })
        .max_by_key(|(id, _)| id.len())
        .map(|(_, entry)| entry)
}

/// The scripted models' small window; unknown for every other model outside the catalog.
pub fn scripted_limit(provider: &str) -> ModelLimit {
    if provider != "scripted" {
        return ModelLimit::default();
    }
    ModelLimit {
        context: Some(128_000),
        input: None,
        output: Some(8_192),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_known_id_names_the_family() {
        let found = nearest("anthropic", "claude-opus-4-5-20991231").unwrap();
        assert_eq!(
            found,
            super::super::model("anthropic", "claude-opus-4-5").unwrap()
        );
        assert!(nearest("openai", "gpt-6.1-sol-mini").is_some());
        // A prefix must end at a separator: `gpt-4` is not the family of `gpt-40`.
        assert!(nearest("openai", "gpt-40").is_none());
        assert!(nearest("local", "qwen").is_none());
        assert_eq!(scripted_limit("scripted").output, Some(8_192));
        assert_eq!(scripted_limit("openai"), ModelLimit::default());
    }
}
