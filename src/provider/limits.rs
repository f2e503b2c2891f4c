//! When a provider's rate or usage limit resets, read from its answer: OpenAI's
//! `x-ratelimit-reset-*` durations ("6m0s", "1.5s", "20ms"), Anthropic's
//! `anthropic-ratelimit-*-reset` times (RFC 3339), or the error's words ("try again in 1.9s").

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// The longest wait a reset is read as; anything later is still beyond any request's budget.
const LONGEST: Duration = Duration::from_secs(7 * 24 * 3600);

/// How long until the limit a 429 hit resets: the latest of the resets the headers name
/// (the one that was hit is not said, so the safe wait is the longest).
pub fn reset_after(headers: &HeaderMap) -> Option<Duration> {
    let now = SystemTime::now();
    headers
        .iter()
        .filter_map(|(name, value)| {
            let name = name.as_str();
            let value = value.to_str().ok()?.trim();
            if name.starts_with("x-ratelimit-reset") {
                go_duration(value)
            } else if name.starts_with("anthropic-ratelimit-") && name.ends_with("-reset") {
                let when = humantime::parse_rfc3339_weak(value).ok()?;
                Some(when.duration_since(now).unwrap_or_default())
            } else {
                None
            }
        })
        .map(|d| d.min(LONGEST))
        .max()
}

/// One limit a provider reported with an answer: which (`requests`, `tokens`,
/// `input-tokens`…), how much of it is left, and when it resets.
#[derive(Debug, Clone, PartialEq)]
pub struct RateWindow {
    pub id: String,
    pub limit: u64,
    pub remaining: u64,
    /// Unix seconds.
    pub resets_at: Option<u64>,
}

impl RateWindow {
    /// How much of the limit is spent, in percent.
    pub fn used_percent(&self) -> f64 {
        if self.limit == 0 {
            return 0.0;
        }
        (self.limit.saturating_sub(self.remaining)) as f64 * 100.0 / self.limit as f64
    }
}

/// The limits an answer's headers report: OpenAI's `x-ratelimit-{limit,remaining,reset}-<id>`
/// and Anthropic's `anthropic-ratelimit-<id>-{limit,remaining,reset}`.
pub fn windows(headers: &HeaderMap) -> Vec<RateWindow> {
    let now = SystemTime::now();
    let unix = |when: SystemTime| {
        when.duration_since(SystemTime::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs())
    };
    let mut found: Vec<RateWindow> = Vec::new();
    for (name, value) in headers {
        let Ok(value) = value.to_str() else { continue };
        let value = value.trim();
        let name = name.as_str();
        let (id, field) = if let Some(rest) = name.strip_prefix("x-ratelimit-") {
            match rest.split_once('-') {
                Some((field, id)) => (id, field),
                None => continue,
            }
        } else if let Some(rest) = name.strip_prefix("anthropic-ratelimit-") {
            match rest.rsplit_once('-') {
                Some((id, field)) => (id, field),
                None => continue,
            }
        } else {
            continue;
        };
        let at = match found.iter().position(|w| w.id == id) {
            Some(at) => at,
            None => {
                found.push(RateWindow {
                    id: id.to_owned(),
                    limit: 0,
                    remaining: 0,
                    resets_at: None,
                });
                found.len() - 1
            }
        };
        let window = &mut found[at];
        match field {
            "limit" => window.limit = value.parse().unwrap_or(0),
            "remaining" => window.remaining = value.parse().unwrap_or(0),
            "reset" => {
                window.resets_at = match go_duration(value) {
                    Some(after) => unix(now + after),
                    None => humantime::parse_rfc3339_weak(value).ok().and_then(unix),
                }
            }
            _ => {}
        }
    }
    found.retain(|w| w.limit > 0);
    found
}

/// "… Please try again in 1.898s." in an error's words: the wait it names.
pub fn reset_in_text(body: &str) -> Option<Duration> {
    let lower = body.to_ascii_lowercase();
    let at = lower.find("try again in ")? + "try again in ".len();
    let word: String = body[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
        .collect();
    go_duration(word.trim_end_matches('.')).map(|d| d.min(LONGEST))
}

/// A Go duration as OpenAI writes them: `1h2m3.5s`, `6m0s`, `20ms`, `0.5s`.
fn go_duration(text: &str) -> Option<Duration> {
    let mut total = 0f64;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            "us" | "µs" => 0.000_001,
            "ns" => 0.000_000_001,
            _ => return None,
        };
        total += number * seconds;
        rest = &rest[unit_len..];
    }
    Duration::try_from_secs_f64(total).ok()
}

/// "at 14:05:09 UTC (in 12 min)": when a wait of `delay` from now ends, for the person.
pub fn when(delay: Duration) -> String {
    let at = SystemTime::now() + delay;
    let stamp = humantime::format_rfc3339_seconds(at).to_string();
    let clock = stamp.get(11..19).unwrap_or(&stamp);
    let secs = delay.as_secs();
    let left = if secs >= 120 {
        format!("{} min", secs.div_ceil(60))
    } else {
        format!("{secs} s")
    };
    format!("at {clock} UTC (in {left})")
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_windows_an_answer_reports_are_read_from_both_providers_headers() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("x-ratelimit-limit-requests", "100"),
            ("x-ratelimit-remaining-requests", "75"),
            ("x-ratelimit-reset-requests", "60s"),
            ("anthropic-ratelimit-tokens-limit", "1000"),
            ("anthropic-ratelimit-tokens-remaining", "1000"),
            ("anthropic-ratelimit-tokens-reset", "2030-01-01T00:00:00Z"),
            ("x-request-id", "abc"),
        ] {
            headers.insert(
                reqwest::header::HeaderName::from_static(name),
                value.parse().unwrap(),
            );
        }
        let found = windows(&headers);
        assert_eq!(found.len(), 2, "{found:?}");
        let requests = found.iter().find(|w| w.id == "requests").unwrap();
        assert_eq!((requests.limit, requests.remaining), (100, 75));
        assert_eq!(requests.used_percent(), 25.0);
        assert!(requests.resets_at.is_some());
        let tokens = found.iter().find(|w| w.id == "tokens").unwrap();
        assert_eq!(tokens.resets_at, Some(1_893_456_000));
    }

    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn openai_and_anthropic_resets_are_read_and_the_latest_wins() {
        assert_eq!(go_duration("6m0s"), Some(Duration::from_secs(360)));
        assert_eq!(
            go_duration("1h2m3.5s"),
            Some(Duration::from_secs_f64(3723.5))
        );
        assert_eq!(go_duration("20ms"), Some(Duration::from_millis(20)));
        assert_eq!(go_duration("soon"), None);
        assert_eq!(go_duration(""), None);
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-reset-requests", HeaderValue::from_static("1s"));
        headers.insert("x-ratelimit-reset-tokens", HeaderValue::from_static("6m0s"));
        assert_eq!(reset_after(&headers), Some(Duration::from_secs(360)));
        let later = humantime::format_rfc3339_seconds(SystemTime::now() + Duration::from_secs(900));
        let mut anthropic = HeaderMap::new();
        anthropic.insert(
            "anthropic-ratelimit-tokens-reset",
            HeaderValue::from_str(&later.to_string()).unwrap(),
        );
        let wait = reset_after(&anthropic).unwrap();
        assert!(
            wait > Duration::from_secs(890) && wait <= Duration::from_secs(900),
            "{wait:?}"
        );
        assert_eq!(reset_after(&HeaderMap::new()), None);
        assert_eq!(
            reset_in_text(
                r#"{"error":{"message":"Rate limit reached for gpt-4.1 on tokens per min (TPM). Please try again in 1.898s. Visit …"}}"#
            ),
            Some(Duration::from_millis(1898))
        );
        assert_eq!(
            reset_in_text("You exceeded your quota. Please try again in 6m0s."),
            Some(Duration::from_secs(360))
        );
        assert_eq!(reset_in_text("try again later"), None);
        assert!(when(Duration::from_secs(720)).ends_with("UTC (in 12 min)"));
    }
}
