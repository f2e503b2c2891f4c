//! The session's shared core, below the turn and the host: the state an open session holds,
//! its status cell, the part writer, the children port and its children in the background,
//! and the watch of protected root entries carried between turns.

pub(in crate::session) mod background;
pub(in crate::session) mod children;
pub(in crate::session) mod copy;
pub(in crate::session) mod goal_cell;
pub(in crate::session) mod root_watch;
pub(in crate::session) mod state;
pub(in crate::session) mod status;
pub(in crate::session) mod writer;
