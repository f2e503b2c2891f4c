//! The `lsp`, `formatter` and `diagnostics` blocks: which language servers and formatters run
//! on the files the tools change, in OpenCode's shape, and how long an edit waits for errors.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `false` turns every entry (the built-ins too) off; a map adds or overrides entries by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Switchable<T> {
    Enabled(bool),
    Entries(IndexMap<String, T>),
}

impl<T> Switchable<T> {
    /// The entries, or None when the block is `false`.
    pub fn entries(setting: Option<&Self>) -> Option<Vec<(&str, &T)>> {
        match setting {
            Some(Self::Enabled(false)) => None,
            Some(Self::Entries(map)) => Some(map.iter().map(|(k, v)| (k.as_str(), v)).collect()),
            _ => Some(Vec::new()),
        }
    }
}

/// One language server: a built-in's name overrides its keys, another name adds a server
/// (which then needs `command` and `extensions`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LspServerConfig {
    /// The program and its arguments; it speaks LSP on stdin and stdout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The file extensions it serves, with or without the dot (`.py`, `ts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// Files whose folder is the server's root (the nearest one above the file wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<String>>,
    /// Environment variables the server starts with.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    /// `initializationOptions` sent with `initialize` (and the answer to its settings requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialization: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
}

/// One formatter: a built-in's name overrides its keys, another name adds one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FormatterConfig {
    /// The program and its arguments; `$FILE` is replaced by the file's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// The file extensions it formats, with or without the dot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// Environment variables it runs with.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub environment: IndexMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
}

/// `"diagnostics": {...}`: how long an edit's result waits for the language server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DiagnosticsConfig {
    /// After the server's answer for the changed text, how long to wait for a further one
    /// (servers that report in stages), in ms; default 15. An answer that names the version
    /// sent is final at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_ms: Option<u64>,
    /// The most an edit waits for the server's answer, its start-up included, in ms; default
    /// 3000. A server still indexing then gives no errors rather than holding the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
}
