//! Language servers and formatters for the files the tools touch: servers started lazily per
//! (root, server) and shared by every session of the process, their errors after each edit,
//! the `lsp` tool's navigation, the project's formatters, and what `/diagnostics` shows.

mod catalog;
mod diagnostics;
mod format;
mod hub;
pub mod locate;
mod navigate;
mod port;
mod position;
mod report;
mod rpc;
mod server;

pub use catalog::{ServerSpec, builtin_names};

/// Every program a built-in language server or formatter starts, by name.
pub fn builtin_programs() -> Vec<&'static str> {
    let mut names: Vec<&str> = catalog::builtin_programs()
        .chain(format::builtin_programs())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}
pub use hub::{Lsp, ServerStatus};
pub use port::SessionCode;
pub use report::{probe, report};
