//! When a conversation no longer fits: OpenCode's formula over the last model call's usage,
//! with the `compaction` config's `auto` and `reserved`.

use crate::config::{CompactionConfig, ModelLimit};
use crate::message::Usage;

/// The most output tokens Tandem plans for, whatever the model allows.
pub(in crate::session) const OUTPUT_TOKEN_MAX: u64 = 32_000;
/// The default room kept free below an input limit.
const COMPACTION_BUFFER: u64 = 20_000;

/// The output tokens a request may ask for: the model's limit, capped at 32,000.
pub(in crate::session) fn max_output(limit: &ModelLimit) -> u64 {
    match limit.output {
        Some(output) if output > 0 => output.min(OUTPUT_TOKEN_MAX),
        _ => OUTPUT_TOKEN_MAX,
    }
}

/// The tokens a conversation may occupy before it must be compacted (None: window unknown).
pub(in crate::session) fn usable(limit: &ModelLimit, config: &CompactionConfig) -> Option<u64> {
    let context = limit.context.filter(|c| *c > 0)?;
    Some(match limit.input.filter(|i| *i > 0) {
        Some(input) => {
            let reserved = config
                .reserved
                .unwrap_or_else(|| COMPACTION_BUFFER.min(max_output(limit)));
            input.saturating_sub(reserved)
        }
        None => context.saturating_sub(max_output(limit)),
    })
}

/// True when a call that used `usage` left no room for the next one.
pub(in crate::session) fn overflows(
    usage: &Usage,
    limit: &ModelLimit,
    config: &CompactionConfig,
) -> bool {
    if config.auto == Some(false) {
        return false;
    }
    usable(limit, config).is_some_and(|usable| usage.context_tokens() >= usable)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(total: u64) -> Usage {
        Usage {
            input: total - 300,
            output: 100,
            cache_read: 150,
            cache_write: 50,
            ..Default::default()
        }
    }

    #[test]
    fn the_threshold_is_exact() {
        let limit = ModelLimit {
            context: Some(128_000),
            input: None,
            output: Some(8_192),
        };
        let config = CompactionConfig::default();
        assert_eq!(usable(&limit, &config), Some(119_808));
        assert!(overflows(&usage(119_808), &limit, &config));
        assert!(!overflows(&usage(119_807), &limit, &config));
        let off = CompactionConfig {
            auto: Some(false),
            ..config
        };
        assert!(!overflows(&usage(127_000), &limit, &off));
    }

    #[test]
    fn an_input_limit_keeps_the_reserve_free() {
        let limit = ModelLimit {
            context: Some(400_000),
            input: Some(272_000),
            output: Some(128_000),
        };
        let config = CompactionConfig::default();
        assert_eq!(usable(&limit, &config), Some(252_000));
        let reserved = CompactionConfig {
            reserved: Some(2_000),
            ..config
        };
        assert_eq!(usable(&limit, &reserved), Some(270_000));
        let unknown = ModelLimit::default();
        assert_eq!(usable(&unknown, &config), None);
        assert!(!overflows(&usage(1_000_000), &unknown, &config));
    }
}
