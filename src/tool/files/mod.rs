//! The tools that read and change files (`read`, `write`, `edit`, `apply_patch`), how an
//! `oldString` or a patch finds its place, and file access through the editor or the disk.

pub(in crate::tool) mod apply_patch;
pub(in crate::tool) mod edit;
pub mod endings;
pub(in crate::tool) mod file;
pub mod for_agent;
pub mod ledger;
pub mod matching;
pub mod patch;
pub(in crate::tool) mod read;
pub(in crate::tool) mod settle;
pub(in crate::tool) mod write;
