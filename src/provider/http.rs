//! The HTTP side shared by the wire formats: one lazily built client, and sending with
//! retries (429, 5xx, connection errors) that honour `retry-after`, then error mapping.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::{RequestBuilder, Response, StatusCode};

use super::ProviderError;

/// The process-wide HTTP client for model requests, webfetch and MCP servers, built on first
/// use so start-up pays nothing for TLS. Certificates: the system's store (so a company CA
/// installed there works) merged with the bundled Mozilla roots (so a machine without a store
/// still connects).
pub fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // rustls takes its crypto from the process default: ring, set once here.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let bundled = || {
            webpki_root_certs::TLS_SERVER_ROOT_CERTS
                .iter()
                .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        };
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(15))
                .user_agent(concat!("tandem/", env!("CARGO_PKG_VERSION")))
        };
        builder()
            .tls_certs_merge(bundled())
            .build()
            .or_else(|e| {
                tracing::warn!(
                    "the system's certificates cannot be used ({e}): bundled roots only"
                );
                builder().tls_certs_only(bundled()).build()
            })
            .unwrap_or_default()
    })
}

/// How hard to retry.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub initial_delay: Duration,
    pub max_delay: Duration,
    /// How long to wait for the response headers of one attempt.
    pub first_byte_timeout: Duration,
    /// How long a streaming answer may go without a byte before the attempt fails.
    pub idle_timeout: Duration,
    /// The whole request, every attempt and wait included, until an answer starts.
    pub total_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            initial_delay: Duration::from_millis(2000),
            max_delay: Duration::from_millis(30_000),
            first_byte_timeout: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
            total_timeout: Duration::from_secs(600),
        }
    }
}

/// What the error messages need to know about the endpoint.
pub struct Endpoint<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub url: &'a str,
    /// Where the person sets the key, for 401/403 messages.
    pub key_hint: &'a str,
    /// Told of each retry.
    pub on_retry: Option<&'a super::RetryObserver>,
}

impl Endpoint<'_> {
    fn tell(&self, event: super::RetryEvent) {
        if let Some(observer) = self.on_retry {
            (observer.0)(event);
        }
    }
}

fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
        || status.is_server_error()
        || status.as_u16() == 529
}

/// The longest delay a server may ask for; anything longer is read as this, and then capped
/// by what is left of the request's whole budget.
const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(24 * 3600);

/// The server's requested delay: `retry-after-ms`, `retry-after` seconds or HTTP date. No value
/// panics: infinite, huge, negative or garbage values are clamped or ignored.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let seconds = |secs: f64| {
        (!secs.is_nan()).then(|| {
            Duration::try_from_secs_f64(secs.max(0.0))
                .map_or(LONGEST_RETRY_AFTER, |d| d.min(LONGEST_RETRY_AFTER))
        })
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    let value = text("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or_default()
            .min(LONGEST_RETRY_AFTER),
    )
}

/// Sends the request built by `build`, retrying transient failures, and returns a 2xx response.
pub async fn send(
    endpoint: &Endpoint<'_>,
    policy: RetryPolicy,
    build: impl Fn() -> RequestBuilder,
) -> Result<Response, ProviderError> {
    let mut attempt = 0u32;
    let deadline = tokio::time::Instant::now() + policy.total_timeout;
    loop {
        let backoff = policy
            .initial_delay
            .saturating_mul(2u32.saturating_pow(attempt))
            .min(policy.max_delay);
        // No attempt outlives the request's whole budget, and no retry starts past it.
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        // Response headers that do not come within the stall limit are a stall like any
        // other: retried, then a clear error.
        let wait = policy.first_byte_timeout.min(policy.idle_timeout).min(left);
        let retry_fits = |delay: Duration| {
            delay < deadline.saturating_duration_since(tokio::time::Instant::now())
        };
        let outcome = tokio::time::timeout(wait, build().send()).await;
        let failure = match outcome {
            Ok(Ok(response)) if response.status().is_success() => {
                if attempt > 0 {
                    endpoint.tell(super::RetryEvent::Resumed);
                }
                let windows = super::limits::windows(response.headers());
                if !windows.is_empty() {
                    endpoint.tell(super::RetryEvent::Limits(windows));
                }
                return Ok(response);
            }
            Ok(Ok(response)) => {
                let status = response.status();
                let headers = response.headers().clone();
                // An error's body is small; one that does not come in time is no body.
                let body = tokio::time::timeout(wait, response.text())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .unwrap_or_default();
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                let (delay, reset) = delay_after(status, &headers, &body, backoff, &policy, left);
                if retryable(status) && attempt < policy.max_retries && retry_fits(delay) {
                    attempt += 1;
                    // A long wait says when it ends; "Trying again in 2 s" says a short one.
                    let message = match reset.filter(|r| *r >= Duration::from_secs(30)) {
                        Some(reset) => format!(
                            "HTTP {status}: the provider's limit resets {}",
                            super::limits::when(reset)
                        ),
                        None => format!("HTTP {status}"),
                    };
                    wait_to_retry(endpoint, attempt, message, delay).await;
                    continue;
                }
                let past_budget = reset.filter(|r| !retry_fits(*r));
                return Err(given_up(endpoint, status, &body, attempt, past_budget));
            }
            Ok(Err(error)) => error_detail(&error),
            Err(_) => format!("no response headers within {} s", wait.as_secs_f32()),
        };
        if attempt >= policy.max_retries || !retry_fits(backoff) {
            return Err(ProviderError::Connection {
                provider: endpoint.provider.to_owned(),
                url: endpoint.url.to_owned(),
                detail: format!("{failure} (after {} attempts)", attempt + 1),
            });
        }
        attempt += 1;
        wait_to_retry(endpoint, attempt, failure, backoff).await;
    }
}

/// How long to wait after a failed answer, and when the limit it hit resets if it says (in its
/// headers, or in its words: "Please try again in 6m0s"):
/// a rate or usage limit that says when it resets is waited out, however long, within what is
/// `left` of the request's budget; other waits are capped.
fn delay_after(
    status: StatusCode,
    headers: &HeaderMap,
    body: &str,
    backoff: Duration,
    policy: &RetryPolicy,
    left: Duration,
) -> (Duration, Option<Duration>) {
    let asked = retry_after(headers);
    let reset = (status == StatusCode::TOO_MANY_REQUESTS)
        .then(|| {
            asked
                .or_else(|| super::limits::reset_after(headers))
                .or_else(|| super::limits::reset_in_text(body))
        })
        .flatten();
    let delay = match reset {
        Some(reset) => reset.min(left),
        None => asked
            .unwrap_or(backoff)
            .min(policy.max_delay.max(Duration::from_secs(60)))
            .min(left),
    };
    (delay, reset)
}

/// The error of a request given up on at `attempt`, saying when its limit resets if that is
/// past the request's budget.
fn given_up(
    endpoint: &Endpoint<'_>,
    status: StatusCode,
    body: &str,
    attempt: u32,
    past_budget: Option<Duration>,
) -> ProviderError {
    let mut error = status_error(endpoint, status, body);
    if let ProviderError::Http { detail, .. } = &mut error {
        if attempt > 0 {
            detail.push_str(&format!(" (gave up after {} attempts)", attempt + 1));
        }
        if let Some(reset) = past_budget {
            detail.push_str(&format!(
                ". The limit resets {}, later than this request may wait (totalTimeout); try \
                 again then, or raise totalTimeout",
                super::limits::when(reset)
            ));
        }
    }
    error
}

/// Says that `attempt` failed with `message` and waits `delay` before the next.
async fn wait_to_retry(endpoint: &Endpoint<'_>, attempt: u32, message: String, delay: Duration) {
    tracing::warn!(
        provider = endpoint.provider,
        attempt,
        error = %message,
        delay_ms = delay.as_millis() as u64,
        "model request failed; retrying"
    );
    endpoint.tell(super::RetryEvent::Waiting {
        attempt,
        message,
        delay,
    });
    tokio::time::sleep(delay).await;
}

/// reqwest's Display hides the cause ("error sending request"); walk the chain.
pub fn error_detail(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The human part of an error body: `error.message` when it is JSON, else the text itself.
pub fn error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error"))
            .and_then(|m| m.as_str())
    });
    let text = message.unwrap_or(body).trim();
    let mut text: String = text.chars().take(500).collect();
    if text.is_empty() {
        text = "(empty body)".into();
    }
    text
}

fn status_error(endpoint: &Endpoint<'_>, status: StatusCode, body: &str) -> ProviderError {
    let detail = error_message(body);
    let provider = endpoint.provider.to_owned();
    match status.as_u16() {
        401 | 403 => ProviderError::Unauthorized {
            provider,
            status: status.as_u16(),
            detail,
            key_hint: endpoint.key_hint.to_owned(),
        },
        404 => ProviderError::ModelNotFound {
            provider,
            model: endpoint.model.to_owned(),
            status: 404,
            detail,
        },
        code => ProviderError::Http {
            provider,
            status: code,
            detail,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_never_panics_on_hostile_values() {
        for value in [
            "inf",
            "-inf",
            "1e400",
            "-5",
            "NaN",
            "garbage",
            "",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "18446744073709551616",
        ] {
            for name in ["retry-after", "retry-after-ms"] {
                let mut headers = HeaderMap::new();
                headers.insert(name, HeaderValue::from_str(value).unwrap());
                let delay = retry_after(&headers);
                assert!(
                    delay.is_none_or(|d| d <= LONGEST_RETRY_AFTER),
                    "{name}: {value}"
                );
            }
        }
    }

    #[test]
    fn retry_after_reads_ms_seconds_and_dates() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        let mut headers = HeaderMap::new();
        headers.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
    }

    #[test]
    fn error_bodies_yield_their_message() {
        assert_eq!(
            error_message(r#"{"error":{"message":"Incorrect API key provided"}}"#),
            "Incorrect API key provided"
        );
        assert_eq!(error_message("upstream down"), "upstream down");
        assert_eq!(error_message(""), "(empty body)");
    }
}
