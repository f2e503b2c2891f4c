//! What the session layer answers with: why a turn stopped, and what went wrong in words the
//! person can act on. Every module of the layer uses these; they import nothing of the layer.

use std::path::PathBuf;

use crate::config::ConfigError;
use crate::id::SessionId;
use crate::provider::ProviderError;
use crate::store::StoreError;

/// Why a prompt turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    MaxTurnRequests,
    Refusal,
    Cancelled,
}

/// What went wrong, in words the person can act on.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("session {0} not found")]
    NotFound(SessionId),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error("the working directory {0} is not an absolute path")]
    RelativeCwd(PathBuf),
    /// A workspace root the editor named cannot be one (the reason names it).
    #[error("{0}")]
    BadRoot(String),
    /// The conversation cannot be brought back inside the model's window.
    #[error("{0}")]
    ContextOverflow(String),
    /// The turn a prompt joined (sent while it ran) failed.
    #[error("the turn this prompt joined failed: {0}")]
    JoinedTurnFailed(String),
    #[error("session {0} was closed")]
    Closed(SessionId),
    /// A bug cut the turn short; the session itself is still usable.
    #[error("Tandem hit an internal error in this turn ({0}); the session is still usable")]
    Internal(String),
    /// The chosen model cannot do what the turn needs (from the catalog), said before asking.
    #[error("{0}")]
    Unsupported(String),
    /// An external ACP agent failed; the words name it and quote its stderr.
    #[error("{0}")]
    Agent(String),
    #[error("a session's title cannot be empty")]
    EmptyTitle,
    #[error(
        "there is no approval level `{name}`; the levels are ask, accept-edits, full-access and read-only"
    )]
    UnknownApproval { name: String },
    #[error("session {0} is busy: wait for its turn to end, or cancel it, and try again")]
    Busy(SessionId),
    #[error("message {message} is not in session {session}")]
    MessageNotFound { session: SessionId, message: String },
    #[error("part {part} is not in message {message}")]
    PartNotFound { message: String, part: String },
    #[error("cannot put the files back: {0}")]
    Snapshot(#[from] crate::snapshot::SnapshotError),
    #[error("there is no mode `{name}`; the modes are: {}", available.join(", "))]
    UnknownMode {
        name: String,
        available: Vec<String>,
    },
    #[error("the model {model} has no variant `{name}`; its variants are: {}", available.join(", "))]
    UnknownVariant {
        name: String,
        model: String,
        available: Vec<String>,
    },
    #[error("there is no model `{name}`; the configured models are: {}", available.join(", "))]
    UnknownModel {
        name: String,
        available: Vec<String>,
    },
}
