//! The MCP servers a session uses, through the official SDK (`rmcp`): where they come from
//! (`spec`), connecting them in the background and keeping their processes on a leash
//! (`connect`, `set`), and their tools as Tandem tools (`tool`).

mod connect;
mod notices;
mod set;
pub mod spec;
mod tool;

pub use set::McpSet;
pub use spec::{McpServerSpec, McpTransport};
