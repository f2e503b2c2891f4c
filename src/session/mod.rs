//! The session core: the manager, one actor per open session, and the turn loop that streams a
//! model's answer into stored parts and runs its tool calls. Publishes events; never names ACP.
//!
//! Inside, an import never runs upward (`tests/layering.rs` checks it): `manager` → `actor` →
//! `turn` (with `compaction`, `joining` and `title` beside it) → `step` (`stream` turns the
//! model's stream into parts, `calls` runs the tool calls) → `setup` (what a turn works with:
//! the `permission` gate, `subagent` delegation, `todos`) → `state` → `children`, `settings`,
//! `writer`, `error`; `history` and `context` (what a request carries) sit below the steps.

mod actor;
mod calls;
mod children;
mod command;
mod compaction;
mod context;
mod error;
mod history;
mod joining;
mod manager;
mod permission;
mod recovery;
mod retry;
mod revert;
mod settings;
mod setup;
mod snapshots;
mod state;
mod status;
mod steering;
mod step;
mod stream;
mod subagent;
mod surface;
mod title;
mod todos;
mod turn;
mod undo;
mod writer;

pub use context::UsageReport;
pub use error::{SessionError, StopReason};
pub use manager::{LIST_PAGE_SIZE, SessionManager};
pub use settings::{CommandView, SessionView};
