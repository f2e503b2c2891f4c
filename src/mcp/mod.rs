//! The MCP servers a session uses, through the official SDK (`rmcp`): where they come from
//! (`spec`), connecting them in the background and keeping their processes on a leash
//! (`connect`, `set`), their tools as Tandem tools (`tool`), their prompts as slash commands
//! (`prompts`), their resources behind a read tool (`resources`), and their questions for the
//! person (`elicit`).

pub mod cli;
mod connect;
mod elicit;
mod login;
mod notices;
pub mod oauth;
mod prompts;
mod resources;
mod set;
pub mod spec;
mod tool;

pub use prompts::PromptCommand;
pub use set::McpSet;
pub use spec::{McpServerSpec, McpTransport};
