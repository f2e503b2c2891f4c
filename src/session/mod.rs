//! The session core: the manager, one actor per open session, and the turn loop that streams a
//! model's answer into stored parts and runs its tool calls. Publishes events; never names ACP.
//!
//! `host/`: the manager and the actors (opening, loading, one actor per open session);
//! `turn/`: one prompt's turn, its steps, the model's stream into parts, the tool calls, and
//! what belongs to a turn (prompts joining it, its hooks, compaction);
//! `ports/`: what a turn's tools reach through (the permission gate, subagents, todos);
//! `hooks/`: the session's hooks and the tools they wrap;
//! `context/`: what a request carries and how a conversation stays inside its window;
//! `undo/`: snapshots, revert and `/undo`;
//! `core/`: what the host and the turn share (the state, its status, the part writer, the
//! children port, the protected-roots watch); `settings` (with `offered`: what an external
//! agent answering the session offers) and `error` below them all.
//!
//! `goal/`: a goal pursued turn after turn, judged on each turn's evidence.
//!
//! Floors, bottom up: error, settings, offered, context → core → ports → hooks → undo → turn →
//! goal → host.
//! A folder imports only from its own floor or those below (`tests/it/layering.rs`); the turn
//! never imports the actor or the manager.

mod context;
mod core;
mod error;
mod goal;
mod hooks;
mod host;
mod offered;
mod ports;
mod settings;
mod turn;
mod undo;

pub use context::UsageReport;
pub use error::{SessionError, StopReason};
pub use host::{LIST_PAGE_SIZE, SessionManager};
pub use offered::ExternalChoices;
pub use settings::{CommandView, DEFAULT_VARIANT, SessionView};
pub use turn::joining::Steered;
pub use undo::rewind::{MessageRef, RewindPlan};
