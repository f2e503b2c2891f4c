//! Where Tandem works around the ACP SDK (agent-client-protocol 5.0), in one place, each file
//! saying what upstream does and why Tandem does otherwise; remove one when upstream changes.
//! `tickets`: updates serialised once and passed beside the SDK's queue (it builds a JSON tree
//! of every message); `params`: requests with malformed `params` answered (it drops them);
//! `old_text`: a new file's diff carries `"oldText": null` (its `Diff` type drops the field).

pub mod old_text;
pub mod params;
mod tickets;

pub use tickets::{Outbox, Tickets, line, outbox};
