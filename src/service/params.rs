//! The parameters every session method takes, in one forgiving shape: OpenCode's spellings
//! (`sessionID`, `messageID`) and ACP's (`sessionId`, `messageId`) both work.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::ServiceError;
use super::transcript::TranscriptFormat;
use crate::id::{MessageId, PartId, SessionId};

#[derive(Debug, Default, Deserialize)]
pub struct Params {
    #[serde(default, alias = "sessionID", alias = "sessionId", alias = "id")]
    pub session_id: Option<SessionId>,
    /// A boundary: revert to it, fork before it, diff from it.
    #[serde(default, alias = "messageID", alias = "messageId")]
    pub message_id: Option<MessageId>,
    /// The other end of a diff (now when absent).
    #[serde(default, alias = "toMessageID", alias = "toMessageId")]
    pub to_message_id: Option<MessageId>,
    #[serde(default, alias = "partID", alias = "partId")]
    pub part_id: Option<PartId>,
    #[serde(default)]
    pub format: Option<TranscriptFormat>,
    #[serde(default, alias = "withTools")]
    pub with_tools: bool,
    /// `list`: only the sessions in this directory.
    #[serde(default, alias = "directory")]
    pub cwd: Option<PathBuf>,
    /// `list`: where the previous page ended.
    #[serde(default)]
    pub cursor: Option<String>,
    /// `list`: how many sessions at most (default: all).
    #[serde(default)]
    pub limit: Option<usize>,
}

impl Params {
    /// Reads the params object (null or absent: none).
    pub fn parse(params: Value) -> Result<Self, ServiceError> {
        if params.is_null() {
            return Ok(Self::default());
        }
        serde_json::from_value(params)
            .map_err(|e| ServiceError::invalid(format!("invalid parameters: {e}")))
    }

    /// The session the method is about, which it needs.
    pub fn session(&self) -> Result<SessionId, ServiceError> {
        self.session_id
            .clone()
            .ok_or_else(|| ServiceError::invalid("this method needs `sessionID`"))
    }
}
