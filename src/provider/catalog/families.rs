//! Model families newer than the catalog snapshot may know: windows and list prices (USD per
//! million tokens) by id prefix, used only when the catalog has no entry for a model.

use crate::config::{ModelCost, ModelLimit};

/// `(provider, model prefix, context, output, [input, output, cache read, cache write])`;
/// the first entry whose prefix starts the model id wins, so longer prefixes come first.
type Entry = (&'static str, &'static str, u64, u64, [f64; 4]);

const MODELS: &[Entry] = &[
    (
        "openai",
        "gpt-4.1-nano",
        1_047_576,
        32_768,
        [0.1, 0.4, 0.025, 0.0],
    ),
    (
        "openai",
        "gpt-4.1-mini",
        1_047_576,
        32_768,
        [0.4, 1.6, 0.1, 0.0],
    ),
    ("openai", "gpt-4.1", 1_047_576, 32_768, [2.0, 8.0, 0.5, 0.0]),
    (
        "openai",
        "gpt-4o-mini",
        128_000,
        16_384,
        [0.15, 0.6, 0.075, 0.0],
    ),
    ("openai", "gpt-4o", 128_000, 16_384, [2.5, 10.0, 1.25, 0.0]),
    (
        "openai",
        "gpt-5-nano",
        400_000,
        128_000,
        [0.05, 0.4, 0.005, 0.0],
    ),
    (
        "openai",
        "gpt-5-mini",
        400_000,
        128_000,
        [0.25, 2.0, 0.025, 0.0],
    ),
    (
        "openai",
        "gpt-5",
        400_000,
        128_000,
        [1.25, 10.0, 0.125, 0.0],
    ),
    (
        "openai",
        "o4-mini",
        200_000,
        100_000,
        [1.1, 4.4, 0.275, 0.0],
    ),
    ("openai", "o3", 200_000, 100_000, [2.0, 8.0, 0.5, 0.0]),
    (
        "anthropic",
        "claude-opus-4-5",
        200_000,
        64_000,
        [5.0, 25.0, 0.5, 6.25],
    ),
    (
        "anthropic",
        "claude-opus-4",
        200_000,
        32_000,
        [15.0, 75.0, 1.5, 18.75],
    ),
    (
        "anthropic",
        "claude-sonnet-4",
        200_000,
        64_000,
        [3.0, 15.0, 0.3, 3.75],
    ),
    (
        "anthropic",
        "claude-haiku-4-5",
        200_000,
        64_000,
        [1.0, 5.0, 0.1, 1.25],
    ),
    (
        "anthropic",
        "claude-3-7-sonnet",
        200_000,
        64_000,
        [3.0, 15.0, 0.3, 3.75],
    ),
    (
        "anthropic",
        "claude-3-5-haiku",
        200_000,
        8_192,
        [0.8, 4.0, 0.08, 1.0],
    ),
    (
        "anthropic",
        "claude",
        200_000,
        64_000,
        [3.0, 15.0, 0.3, 3.75],
    ),
];

fn entry(provider: &str, model: &str) -> Option<&'static Entry> {
    MODELS
        .iter()
        .find(|(p, prefix, ..)| *p == provider && model.starts_with(prefix))
}

/// The window of a model of a known family (the scripted models get a small one).
pub fn limit(provider: &str, model: &str) -> ModelLimit {
    if provider == "scripted" {
        return ModelLimit {
            context: Some(128_000),
            input: None,
            output: Some(8_192),
        };
    }
    entry(provider, model)
        .map(|(_, _, context, output, _)| ModelLimit {
            context: Some(*context),
            input: None,
            output: Some(*output),
        })
        .unwrap_or_default()
}

/// The list prices of a model of a known family.
pub fn cost(provider: &str, model: &str) -> Option<ModelCost> {
    entry(provider, model).map(|(.., [input, output, cache_read, cache_write])| ModelCost {
        input: *input,
        output: *output,
        cache_read: *cache_read,
        cache_write: *cache_write,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longer_prefixes_win() {
        assert_eq!(cost("openai", "gpt-4.1-mini").unwrap().input, 0.4);
        assert_eq!(cost("openai", "gpt-4.1").unwrap().input, 2.0);
        assert_eq!(
            cost("anthropic", "claude-sonnet-4-5").unwrap().cache_write,
            3.75
        );
        assert_eq!(limit("openai", "gpt-4o").context, Some(128_000));
        assert!(cost("local", "qwen").is_none());
        assert_eq!(limit("scripted", "demo").output, Some(8_192));
    }
}
