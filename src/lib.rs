//! Tandem: a coding agent that editors drive over the Agent Client Protocol.
//! Layers, bottom up: id, paths, message, todo → provider, config, permission → store, bus,
//! snapshot → tool, agent, command, mcp → session → service → acp (the editor's edge), server
//! (`tandem serve`), run (the headless terminal) and sessions (`tandem sessions`). Imports
//! mostly run downward, not always (issue 25 untangles the rest); `tests/layering.rs` checks
//! that `session/` has no import circle and never names `acp`.
#![deny(clippy::print_stdout)]

pub mod acp;
pub mod agent;
pub mod auth;
pub mod bus;
pub mod command;
pub mod config;
pub mod doctor;
pub mod id;
pub mod logging;
pub mod mcp;
pub mod message;
pub mod models;
pub mod numbers;
pub mod paths;
pub mod permission;
pub mod platform;
pub mod provider;
pub mod run;
pub mod sandbox;
pub mod schema;
pub mod secret;
pub mod server;
pub mod service;
pub mod session;
pub mod sessions;
pub mod snapshot;
pub mod store;
pub mod todo;
pub mod tool;
