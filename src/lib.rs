//! Tandem: a coding agent that editors drive over the Agent Client Protocol.
//! Layers, bottom up: id, numbers, paths, secret, logging, sys, utf8 → message, todo, memory →
//! config, auth → goal, permission, provider → sandbox, store, bus, snapshot, worktree →
//! process → tool, command → mcp, lsp, remote, extension, trust → agent → session → service →
//! acp, server, run, sessions, import, doctor, models, schema. A module imports only from its own
//! layer or those below, and no two modules import each other in a circle:
//! `tests/it/layering.rs` reads this list and checks both over the whole crate.
#![deny(clippy::print_stdout)]

pub mod acp;
pub mod agent;
pub mod auth;
pub mod bus;
pub mod command;
pub mod config;
pub mod doctor;
pub mod extension;
pub mod goal;
pub mod id;
pub mod import;
pub mod logging;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod message;
pub mod models;
pub mod numbers;
pub mod paths;
pub mod permission;
pub mod process;
pub mod provider;
pub mod remote;
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
pub mod sys;
pub mod todo;
pub mod tool;
pub mod trust;
pub mod utf8;
pub mod worktree;
