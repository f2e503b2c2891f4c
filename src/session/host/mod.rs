//! Where sessions live: the manager (`manager`: the type and its shutdown path), its methods
//! grouped by purpose (`lifecycle`: create, open, close, fork, delete; `turns`: prompt, cancel,
//! what a session runs with, status; `history`: revert, diff, snapshots, stored messages, the
//! list; `trust`: the folder's standing before a prompt), one actor per open session, recovery,
//! and the watches around them.

pub(in crate::session) mod actor;
pub(in crate::session) mod diagnostics;
pub(in crate::session) mod history;
pub(in crate::session) mod jobs;
pub(in crate::session) mod lifecycle;
pub(in crate::session) mod manager;
pub(in crate::session) mod memory;
pub(in crate::session) mod opening;
pub(in crate::session) mod recovery;
pub(in crate::session) mod skill_watch;
pub(in crate::session) mod trust;
pub(in crate::session) mod turns;

pub use manager::{LIST_PAGE_SIZE, SessionManager};
