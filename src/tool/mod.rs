//! The tool registry and the `Tool` trait every tool implements, one file per tool. Tools
//! get a `ToolContext` and never import the session layer.

pub mod context;
mod list;

use std::sync::Arc;

use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use context::{ClientPort, PermissionDecision, PermissionRequest, ToolContext, UnattendedPort};

use crate::provider::ToolSpec;

/// What a tool returns to the model (and the editor).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// A short line for the editor: the path, the command, the count.
    pub title: String,
    /// The text the model reads.
    pub output: String,
    pub metadata: Value,
}

/// A failure the model reads and can act on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

/// A tool the model can call.
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    /// Teaches the model when and how to use the tool.
    fn description(&self) -> &'static str;
    /// JSON Schema of the input object.
    fn parameters(&self) -> Value;
    /// The editor's title for a call before it runs.
    fn title(&self, input: &Value) -> String {
        let _ = input;
        self.name().to_owned()
    }
    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// Parses a tool's input, with an error the model can fix its call from.
pub fn parse_input<T: DeserializeOwned>(tool: &str, input: Value) -> Result<T, ToolError> {
    serde_json::from_value(input).map_err(|e| {
        ToolError(format!(
            "The {tool} tool was called with invalid arguments: {e}. Call it again with arguments matching its parameters."
        ))
    })
}

/// The tools available to sessions, by name.
#[derive(Clone)]
pub struct Registry {
    tools: IndexMap<&'static str, Arc<dyn Tool>>,
}

impl Registry {
    /// The built-in tools.
    pub fn builtin() -> Self {
        let mut registry = Self {
            tools: IndexMap::new(),
        };
        registry.register(Arc::new(list::ListTool));
        registry
    }

    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.name(), tool);
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tools.keys().copied()
    }

    /// What the model is told about every tool.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .values()
            .map(|tool| ToolSpec {
                name: tool.name().to_owned(),
                description: tool.description().to_owned(),
                parameters: tool.parameters(),
            })
            .collect()
    }
}
