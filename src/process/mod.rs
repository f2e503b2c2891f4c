//! Child processes, below the tools and everything else that starts one (bash and its jobs,
//! hooks, language servers, formatters, MCP servers, external agents): starting a shell line or
//! a program in a process group of its own that dies with Tandem, optionally sandboxed; the
//! groups' list; the watchdog that ends them if Tandem is killed; and the processes that
//! leave their group, found again as Tandem is their subreaper.

pub mod escapees;
pub mod groups;
pub mod program;
pub mod reaper;
pub mod shell;
