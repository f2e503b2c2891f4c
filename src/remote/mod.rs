//! Other ACP agents as Tandem's subagents, with Tandem as their ACP client: `process` starts
//! one, `agent` speaks ACP to it, `events` turns what it streams into Tandem's terms, and its
//! requests go to a `RemoteHost`, which the session layer answers under Tandem's rules.

mod agent;
mod elicit;
mod events;
mod handlers;
mod host;
mod mcp;
mod process;
mod rpc;
mod slot;
mod wire;

pub use agent::{Opened, RemoteAgent, RemoteStop};
pub use events::{CallStatus, RemoteEvent, RemoteToolCall};
pub use host::{Answer, Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
