//! Which model Tandem starts on when the person gives only a key: chosen by a rule over the
//! catalog's data, never by an id written in code, so a refreshed catalog moves the default.
//!
//! The rule, per provider:
//! - **current**: calls tools, reasons, has no status, retirement date passed or successor, is
//!   not a dated snapshot, a preview, an experiment or a moving `-latest` alias, and its id
//!   names a generation (`claude-sonnet-5-5` → 5.5, `gpt-6.1-sol` → 6.1);
//! - **flagship**: of the newest generation, the model with the highest output price at an
//!   everyday price (at most $15 per million output tokens; the cheapest of that generation if
//!   none is);
//! - **small** (titles, and compaction when its window is as large): the cheapest current model
//!   that calls tools, of the flagship's generation or the one before.

use super::{CatalogModel, models};

/// The most, in USD per million output tokens, a model priced for everyday use costs.
pub const EVERYDAY_OUTPUT_PRICE: f64 = 15.0;

/// A provider's default models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    pub flagship: &'static str,
    pub small: Option<&'static str>,
}

/// The rule in one sentence, for `tandem doctor`.
pub const RULE: &str = "the newest generation's model that calls tools and reasons at an \
    everyday price (at most $15 per million output tokens), from the catalog";

/// The generation an id names: its first number (after an optional `v`), with a minor part
/// after a dot or as the next one- or two-digit part. Numbers of three digits or more are
/// dates or sizes, not generations.
pub fn generation(id: &str) -> Option<(u32, u32)> {
    let name = id.rsplit('/').next().unwrap_or(id);
    let parts: Vec<&str> = name.split('-').collect();
    for (i, part) in parts.iter().enumerate() {
        let number = part.strip_prefix('v').unwrap_or(part);
        let (major, minor) = match number.split_once('.') {
            Some((major, minor)) => (major, Some(minor)),
            None => (number, None),
        };
        let small =
            |s: &str| s.len() <= 2 && !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !small(major) || minor.is_some_and(|m| !small(m)) {
            continue;
        }
        let minor = match minor {
            Some(minor) => minor.parse().ok()?,
            None => parts
                .get(i + 1)
                .filter(|next| small(next))
                .and_then(|next| next.parse().ok())
                .unwrap_or(0),
        };
        return Some((major.parse().ok()?, minor));
    }
    None
}

/// A dated snapshot (`-20250929`, `-2026-03-05`), a preview, an experiment or a moving alias.
fn pinned_and_released(id: &str) -> bool {
    let parts: Vec<&str> = id.split(['-', '/']).collect();
    let dated = parts
        .iter()
        .any(|p| p.len() >= 4 && p.bytes().all(|b| b.is_ascii_digit()));
    let moving = parts
        .iter()
        .any(|p| matches!(*p, "preview" | "latest" | "exp" | "experimental"));
    !dated && !moving
}

/// The provider's current models that call tools, with their generations.
fn current(provider: &str, today: &str) -> Vec<(&'static str, &'static CatalogModel, (u32, u32))> {
    models(provider)
        .filter(|(id, m)| m.tools && m.is_current(today) && pinned_and_released(id))
        .filter_map(|(id, m)| generation(id).map(|g| (id, m, g)))
        .collect()
}

fn output_price(model: &CatalogModel) -> f64 {
    model.cost[1]
}

/// The default models of `provider` on `today` (`YYYY-MM-DD`), if its catalog has any.
pub fn for_provider(provider: &str, today: &str) -> Option<Defaults> {
    let all = current(provider, today);
    let reasoning: Vec<_> = all.iter().filter(|(_, m, _)| m.reasoning).collect();
    let newest = reasoning.iter().map(|(_, _, g)| *g).max()?;
    let of_newest: Vec<_> = reasoning.iter().filter(|(_, _, g)| *g == newest).collect();
    let everyday = of_newest
        .iter()
        .filter(|(_, m, _)| output_price(m) <= EVERYDAY_OUTPUT_PRICE)
        .max_by(|a, b| {
            output_price(a.1)
                .total_cmp(&output_price(b.1))
                .then(b.0.cmp(a.0))
        });
    let cheapest = || {
        of_newest.iter().min_by(|a, b| {
            output_price(a.1)
                .total_cmp(&output_price(b.1))
                .then(a.0.cmp(b.0))
        })
    };
    let picked = everyday.or_else(cheapest)?;
    let (flagship, major) = (picked.0, picked.2.0);
    let small = all
        .iter()
        .filter(|(_, m, (g, _))| g + 1 >= major && output_price(m) > 0.0)
        .min_by(|a, b| {
            let key = |m: &CatalogModel| (output_price(m), m.cost[0]);
            let (pa, pb) = (key(a.1), key(b.1));
            pa.0.total_cmp(&pb.0)
                .then(pa.1.total_cmp(&pb.1))
                .then(a.0.cmp(b.0))
        })
        .map(|(id, _, _)| *id)
        .filter(|id| *id != flagship);
    Some(Defaults { flagship, small })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_are_read_from_ids() {
        for (id, generation_named) in [
            ("claude-sonnet-5-5", Some((5, 5))),
            ("claude-3-7-sonnet-20250219", Some((3, 7))),
            ("claude-opus-4-5-20251101", Some((4, 5))),
            ("gpt-6.1-sol", Some((6, 1))),
            ("gpt-5-mini", Some((5, 0))),
            ("gemini-3.8-flash", Some((3, 8))),
            ("deepseek-v4-pro", Some((4, 0))),
            ("o3", None),
            ("gpt-oss-120b", None),
            ("devstral-2512", None),
        ] {
            assert_eq!(generation(id), generation_named, "{id}");
        }
        assert!(!pinned_and_released("claude-sonnet-4-5-20250929"));
        assert!(!pinned_and_released("gpt-5.4-2026-03-05"));
        assert!(!pinned_and_released("gemini-3.1-pro-preview"));
        assert!(!pinned_and_released("chat-latest"));
        assert!(pinned_and_released("gpt-6.1-sol"));
    }

    #[test]
    fn the_rule_over_the_snapshot() {
        let today = "2026-11-29";
        let anthropic = for_provider("anthropic", today).unwrap();
        let openai = for_provider("openai", today).unwrap();
        // Whatever the snapshot holds, the rule's answers are current, call tools and reason,
        // and the flagship is of the newest generation at an everyday price.
        for (provider, picked) in [("anthropic", anthropic), ("openai", openai)] {
            let flagship = super::super::model(provider, picked.flagship).unwrap();
            assert!(flagship.is_current(today) && flagship.tools && flagship.reasoning);
            assert!(output_price(flagship) <= EVERYDAY_OUTPUT_PRICE);
            let newest = current(provider, today)
                .iter()
                .filter(|(_, m, _)| m.reasoning)
                .map(|(_, _, g)| *g)
                .max();
            assert_eq!(generation(picked.flagship), newest);
            let small = super::super::model(provider, picked.small.unwrap()).unwrap();
            assert!(output_price(small) < output_price(flagship));
        }
        // The snapshot of November 2026.
        assert_eq!(anthropic.flagship, "claude-sonnet-5-5");
        assert_eq!(anthropic.small, Some("claude-haiku-5-5"));
        assert_eq!(openai.flagship, "gpt-6.1-sol");
        assert_eq!(openai.small, Some("gpt-6-luna"));
        assert_eq!(for_provider("local", today), None);
    }
}
