//! A tool call as the message model records it: its kind, its state from pending to a result,
//! the places it touched and the diffs it made.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What kind of work a tool call does; editors pick icons and grouping from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    Read,
    Edit,
    Delete,
    Move,
    Search,
    Execute,
    Think,
    Fetch,
    /// Leaving one mode for another (plan mode's approval).
    SwitchMode,
    #[default]
    Other,
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolPart {
    /// The provider's call id, echoed back with the result.
    pub call_id: String,
    pub tool: String,
    /// Set from the tool when the call is made (records written before it was kept have none
    /// until the session layer fills it in from the tool registry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolKind>,
    pub state: ToolState,
    /// What the editor shows: the command, the path, the pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Files the call touches, for "follow the agent".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
    /// When pruning cleared this call's output from the model's view (the stored output stays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pruned_at: Option<i64>,
    /// Run by the provider itself (its own web search): shown and stored like any call, but
    /// never run by Tandem nor sent back to the model.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hosted: bool,
}

/// A place in a file: an absolute path and, where known, a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Location {
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            line: None,
        }
    }
}

/// A file change as the editor reviews it: the whole file before (None = new) and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileDiff {
    pub path: PathBuf,
    pub old_text: Option<String>,
    pub new_text: String,
}

/// An image a tool returned for the model to see, base64-encoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub mime: String,
    pub data: String,
}

/// The life of a tool call: pending → running → completed | error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ToolState {
    Pending {
        input: Value,
    },
    Running {
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        started_at: i64,
    },
    Completed {
        input: Value,
        output: String,
        title: String,
        /// The tool's own facts about the call (an exit code, a count), for the raw output.
        #[serde(default)]
        metadata: Value,
        /// Files the call changed, whole before and after.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        diffs: Vec<FileDiff>,
        /// Images the model is shown with the output.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<Attachment>,
        /// The editor's terminal the command ran in, which shows its output live.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        terminal_id: Option<String>,
        started_at: i64,
        ended_at: i64,
    },
    Error {
        input: Value,
        /// What the model reads.
        error: String,
        /// What the person is shown instead, when it differs (a rejection, a denial).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shown: Option<String>,
        started_at: i64,
        ended_at: i64,
    },
}

impl ToolState {
    /// The call's input, taken out of its state.
    pub fn into_input(self) -> Value {
        match self {
            ToolState::Pending { input }
            | ToolState::Running { input, .. }
            | ToolState::Completed { input, .. }
            | ToolState::Error { input, .. } => input,
        }
    }

    pub fn input(&self) -> &Value {
        match self {
            ToolState::Pending { input }
            | ToolState::Running { input, .. }
            | ToolState::Completed { input, .. }
            | ToolState::Error { input, .. } => input,
        }
    }

    pub fn is_finished(&self) -> bool {
        matches!(self, ToolState::Completed { .. } | ToolState::Error { .. })
    }
}
