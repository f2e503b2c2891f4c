//! Other ACP agents as Tandem's subagents, with Tandem as their ACP client (the SDK's client
//! side): `process` starts one, `agent` speaks ACP to it over `connection`, `events` turns what
//! it streams into Tandem's terms, and its requests (`handlers`) go to a `RemoteHost`, which the
//! session layer answers under Tandem's rules.

mod agent;
mod connection;
mod elicit;
mod events;
mod form;
mod handlers;
mod host;
mod mcp;
mod offer;
mod process;
mod slot;

pub use agent::{Opened, RemoteAgent, RemoteStop};
pub use events::{CallStatus, RemoteEvent, RemoteToolCall};
pub use host::{Answer, Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
pub use offer::{AgentOffer, OfferedOption, OfferedValue, OptionPlace, OptionState, OptionValue};
