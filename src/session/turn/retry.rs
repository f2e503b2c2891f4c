//! A model request that fails on the way is tried again, and the person sees it: each wait is
//! a `retry` part of the answer it delays; an answer that broke off mid-stream is set aside
//! (shown, never sent to the model again) and asked for anew after a backoff.

use std::time::Duration;

use tokio::sync::mpsc;

use crate::message::PartBody;
use crate::provider::{ProviderError, RetryEvent, RetryObserver, RetryPolicy};

/// One failed attempt and the wait before the next.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) struct Wait {
    pub attempt: u32,
    pub error: String,
    pub delay: Duration,
}

/// An observer that tells `inner` (the session's status) of each retry and hands the waits to
/// the returned receiver, so the stream reading the answer can record them as it goes.
pub(in crate::session) fn watch(
    inner: Option<RetryObserver>,
) -> (RetryObserver, mpsc::UnboundedReceiver<Wait>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let observer = RetryObserver(std::sync::Arc::new(move |event: RetryEvent| {
        if let RetryEvent::Waiting {
            attempt,
            message,
            delay,
        } = &event
        {
            let _ = tx.send(Wait {
                attempt: *attempt,
                error: message.clone(),
                delay: *delay,
            });
        }
        if let Some(inner) = &inner {
            (inner.0)(event);
        }
    }));
    (observer, rx)
}

/// A wait as the `retry` part that shows it.
pub(in crate::session) fn part(wait: Wait) -> PartBody {
    PartBody::Retry {
        attempt: wait.attempt,
        error: wait.error,
        delay_ms: wait.delay.as_millis() as u64,
    }
}

/// How long to wait before asking again for an answer that broke off, when it should be
/// asked for again: the error is a broken stream and `broken_before` earlier answers to this
/// step broke off fewer times than the provider's retries allow.
pub(in crate::session) fn again(
    policy: &RetryPolicy,
    broken_before: u32,
    error: &ProviderError,
) -> Option<Duration> {
    if !error.is_broken() || broken_before >= policy.max_retries {
        return None;
    }
    Some(
        policy
            .initial_delay
            .saturating_mul(2u32.saturating_pow(broken_before))
            .min(policy.max_delay),
    )
}

/// Tells the session's status of a wait Tandem itself decided on.
pub(in crate::session) fn tell(status: &RetryObserver, wait: &Wait) {
    (status.0)(RetryEvent::Waiting {
        attempt: wait.attempt,
        message: wait.error.clone(),
        delay: wait.delay,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn broken() -> ProviderError {
        ProviderError::Broken {
            provider: "p".into(),
            detail: "connection reset".into(),
        }
    }

    #[test]
    fn only_broken_streams_are_asked_for_again_with_a_growing_wait() {
        let policy = RetryPolicy {
            max_retries: 2,
            initial_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(150),
            ..RetryPolicy::default()
        };
        assert_eq!(
            again(&policy, 0, &broken()),
            Some(Duration::from_millis(100))
        );
        assert_eq!(
            again(&policy, 1, &broken()),
            Some(Duration::from_millis(150))
        );
        assert_eq!(again(&policy, 2, &broken()), None);
        let refused = ProviderError::Stream {
            provider: "p".into(),
            detail: "invalid request".into(),
        };
        assert_eq!(again(&policy, 0, &refused), None);
    }
}
