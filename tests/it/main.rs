//! The integration tests, one module a file, in one binary: the crate is linked once instead
//! of once a file. `kill_loop.rs` stays a binary of its own (it SIGKILLs agents on a clock and
//! must not share the machine's cores with the rest). Run one file with
//! `cargo test --test it <module>::`.

#[path = "../support/mod.rs"]
mod support;

mod acp_fuzz;
mod acp_protocol;
mod acp_resilience;
mod acp_sdk_client;
mod acp_sessions;
mod acp_subagents;
mod acp_turns;
mod agents;
mod air;
mod approval_levels;
mod auth;
mod background_jobs;
mod background_tasks;
mod client_prompt;
mod commands_titles;
mod config_doctor;
mod context;
mod crash_recovery;
mod custom_tools;
mod delegation;
mod editors;
mod edits_as_sent;
mod goals;
mod hooks;
mod hostile_bash;
mod hostile_modes;
mod hostile_paths;
mod hostile_split;
mod interop_acpx;
mod layering;
mod legacy_store;
mod limits;
mod lsp;
mod mcp;
mod memory;
mod model_loops;
mod models;
mod permissions;
mod plan_approval;
mod prompt_cache;
mod protected_files;
mod provider_faults;
mod questions;
mod registry;
mod responses_api;
mod retention;
mod retries;
mod rewind;
mod run_headless;
mod run_terminal;
mod sandbox;
mod schemas;
mod sdk_clients;
mod server;
mod skills;
mod snapshots;
mod status;
mod steering;
mod store_race;
mod tls;
mod todos;
mod tools_bash;
mod tools_files;
mod tools_webfetch;
mod trust;
mod variants;
mod websearch;
mod workspace_extensions;
mod workspace_roots;
mod worktrees;
