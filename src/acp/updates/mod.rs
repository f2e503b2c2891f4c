//! What Tandem sends the editor unasked: core events and stored parts as `session/update`s,
//! which session each reaches, the replay of a loaded session, what follows an open, and
//! JetBrains Air's bundle for a client that declared it.

pub(super) mod air;
pub(super) mod chunk;
pub(super) mod compaction;
pub(super) mod opened;
pub(super) mod replay;
pub(super) mod route;
pub(super) mod stored_content;
pub(super) mod translate;
