//! Why a tool call failed, typed: what the model reads (`Display`) and, where it differs, what
//! the person is shown. Failures of the client port carry what was being done and to what.

use std::path::PathBuf;

/// What the model is told when the person rejects a call (or rejected one earlier this turn).
const REJECTED: &str = "The user rejected permission to use this specific tool call. Do not retry it \
unchanged; continue without it, or ask the user how to proceed.";

/// A failed tool call. `Display` is written for the model, which reads it and acts on it.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's parameters; `field` names the one that is wrong.
    #[error(
        "The {tool} tool was called with invalid arguments: {}{reason}. Call it again with arguments matching its parameters.",
        field.as_deref().map(|f| format!("`{f}`: ")).unwrap_or_default()
    )]
    InvalidInput {
        tool: String,
        field: Option<String>,
        reason: String,
    },
    /// The permission rules deny `pattern` under `permission`.
    #[error(
        "The user's permission rules deny {permission} `{pattern}`. Do not retry it; continue without it or ask the user."
    )]
    Denied { permission: String, pattern: String },
    /// The person said no to `title` (or to an earlier question this turn).
    #[error("{REJECTED}")]
    Rejected { title: String },
    /// The turn was cancelled while the call waited or ran.
    #[error("Tool execution was cancelled by the person.")]
    Cancelled,
    /// A file or directory could not be read, written, listed or removed.
    #[error("Cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The editor could not do what was asked of it.
    #[error(transparent)]
    Client(#[from] PortError),
    /// The session store failed underneath the tool.
    #[error("The session store failed: {0}")]
    Store(#[from] crate::store::StoreError),
    /// Anything else, explained for the model by the tool.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// A failure explained by the tool itself.
    pub fn failed(message: impl Into<String>) -> Self {
        ToolError::Failed(message.into())
    }

    /// A filesystem failure on `path`.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ToolError::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// What the editor shows the person, when it should not be the model's instructions.
    pub fn for_person(&self) -> Option<String> {
        match self {
            ToolError::Rejected { title } => Some(format!("Rejected: {title}")),
            ToolError::Denied {
                permission,
                pattern,
            } => Some(format!(
                "Denied by your permission rules: {permission} `{pattern}`"
            )),
            ToolError::Cancelled => Some("Cancelled".into()),
            _ => None,
        }
    }
}

/// What a failed client call was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAction {
    Read,
    Write,
}

impl std::fmt::Display for FileAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileAction::Read => "read",
            FileAction::Write => "write",
        })
    }
}

/// A call to the client (the editor, the headless runner) that failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortError {
    /// The client does not offer this (no `fs` or `terminal` capability).
    #[error("the client offers no {0}")]
    Unsupported(&'static str),
    /// The editor answered a file request with an error.
    #[error("the editor could not {action} {}: {message}", path.display())]
    File {
        action: FileAction,
        path: PathBuf,
        message: String,
    },
    /// The editor's terminal failed at `action` (start, wait, report output, kill, release).
    #[error("the editor's terminal failed to {action}: {message}")]
    Terminal {
        action: &'static str,
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_and_the_person_read_different_words_for_a_refusal() {
        let rejected = ToolError::Rejected {
            title: "Edit a.txt".into(),
        };
        assert!(
            rejected
                .to_string()
                .starts_with("The user rejected permission")
        );
        assert_eq!(rejected.for_person().unwrap(), "Rejected: Edit a.txt");
        let denied = ToolError::Denied {
            permission: "bash".into(),
            pattern: "rm -rf /".into(),
        };
        assert_eq!(
            denied.to_string(),
            "The user's permission rules deny bash `rm -rf /`. Do not retry it; continue without it or ask the user."
        );
        assert_eq!(
            denied.for_person().unwrap(),
            "Denied by your permission rules: bash `rm -rf /`"
        );
        assert_eq!(ToolError::failed("plain").for_person(), None);
    }

    #[test]
    fn invalid_input_names_the_field() {
        let error = ToolError::InvalidInput {
            tool: "read".into(),
            field: Some("offset".into()),
            reason: "invalid type: string \"x\", expected usize".into(),
        };
        assert_eq!(
            error.to_string(),
            "The read tool was called with invalid arguments: `offset`: invalid type: string \"x\", expected usize. Call it again with arguments matching its parameters."
        );
    }
}
