//! Where sessions live: the manager that opens, loads, forks and lists them (its second half
//! in `surface`), one actor per open session, recovery, and the watches around them.

pub(in crate::session) mod actor;
pub(in crate::session) mod diagnostics;
pub(in crate::session) mod jobs;
pub(in crate::session) mod manager;
pub(in crate::session) mod recovery;
pub(in crate::session) mod skill_watch;
pub(in crate::session) mod surface;
pub(in crate::session) mod trust;

pub use manager::{LIST_PAGE_SIZE, SessionManager};
