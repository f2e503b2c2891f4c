//! The methods the editor calls: initialize and authenticate, the session lifecycle, prompts
//! and cancels, modes and config options, the adapters' shared `_session/…` extensions
//! (steering, rewind), and Tandem's `_tandem/…` extension requests.

pub(super) mod agent_options;
pub(super) mod auth;
pub(super) mod children;
pub(super) mod client_prompt;
pub(super) mod delete;
pub(super) mod fork;
pub(super) mod initialize;
pub(super) mod mcp_servers;
pub(super) mod modes;
pub(super) mod prompt;
pub(super) mod rewind;
pub(super) mod service;
pub(super) mod session;
pub(super) mod status;
pub(super) mod steering;
pub(super) mod todo;
