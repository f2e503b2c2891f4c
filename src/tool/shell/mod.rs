//! `bash` and what stands around it: the checks a line must pass (`checks`), the sandbox it
//! runs in (`sandbox`), background jobs (`jobs`), process groups and the watchdog that kills
//! them when Tandem dies, and starting a program (not a shell line) the same way (`program`).

pub(in crate::tool) mod bash;
pub mod checks;
pub mod escapees;
pub mod groups;
pub mod jobs;
pub(in crate::tool) mod process;
pub mod program;
pub mod reaper;
pub(in crate::tool) mod sandbox;
