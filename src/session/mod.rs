//! The session core: the manager, one actor per open session, and the turn loop that streams a
//! model's answer into stored parts and runs its tool calls. Publishes events; never names ACP.
//!
//! Layers inside, top down (an import never runs upward): `manager` → `actor` → `turn` →
//! `setup`, `step` → `stream`, `calls` → `permission`, `subagent`, `todos`, `writer`,
//! `history` → `state`, `children`, `settings`, `command`, `title`, `error`.

mod actor;
mod calls;
mod children;
mod command;
mod error;
mod history;
mod manager;
mod permission;
mod settings;
mod setup;
mod state;
mod step;
mod stream;
mod subagent;
mod title;
mod todos;
mod turn;
mod writer;

pub use error::{SessionError, StopReason};
pub use manager::{LIST_PAGE_SIZE, SessionManager};
pub use settings::SessionView;
