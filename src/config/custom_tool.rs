//! `"tool": {...}`: tools the person defines without writing Rust, in config or one per file
//! in `.tandem/tool/*.json` (named by the file): a description, the JSON Schema of the
//! arguments, and the command that gets them as JSON on stdin and answers on stdout.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One custom tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CustomToolConfig {
    /// What the model is told the tool does and when to use it.
    pub description: String,
    /// The JSON Schema of its arguments (default: any object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// The program and its arguments; it reads the call's arguments as JSON on stdin and its
    /// stdout is the result (a non-zero exit is an error the model reads).
    pub command: Vec<String>,
    /// Environment variables it runs with.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub environment: IndexMap<String, String>,
    /// Seconds it may run (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}
