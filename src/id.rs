//! Identifiers and clocks: ULIDs for sessions, messages, parts and tool calls, monotonic
//! within the process, plus the millisecond wall clock every record is stamped with.

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use ulid::Generator;

static GENERATOR: Mutex<Generator> = Mutex::new(Generator::new());

/// A fresh ULID string; ids made later in this process always sort after earlier ones.
pub fn ulid() -> String {
    let mut generator = GENERATOR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match generator.generate() {
        Ok(id) => id.to_string(),
        // The random part overflowed within one millisecond: fall back to a fresh random id.
        Err(_) => ulid::Ulid::new().to_string(),
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// An RFC 3339 / ISO 8601 UTC timestamp with milliseconds, as ACP's `updatedAt` wants.
pub fn iso8601(ms: i64) -> String {
    let time = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_millis(time).to_string()
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// A new id, sorting after every id made before it in this process.
            pub fn new() -> Self {
                Self(ulid())
            }
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(value: String) -> Self {
                Self(value)
            }
        }
    };
}

id_type!(
    /// A session's id.
    SessionId
);
id_type!(
    /// A message's id; messages of a session sort by it.
    MessageId
);
id_type!(
    /// A part's id; the parts of a message sort by it.
    PartId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulids_are_monotonic_and_26_chars() {
        let ids: Vec<String> = (0..1000).map(|_| ulid()).collect();
        assert!(ids.iter().all(|id| id.len() == 26));
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn iso8601_formats_utc_millis() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    }
}
