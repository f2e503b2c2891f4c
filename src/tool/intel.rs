//! What the tools ask of the project's language servers and formatters, as a port the `lsp`
//! layer implements (tools never import it): a file read warms its server, a changed file is
//! formatted and checked, and the `lsp` tool's questions are answered.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;

use crate::sandbox::Policy;

/// What running a formatter on a changed file did.
#[derive(Debug, Clone, PartialEq)]
pub enum Formatting {
    /// No formatter applies to the file (or formatting is off).
    None,
    /// The formatter ran and left the file as it was.
    Unchanged { by: String },
    /// The formatter rewrote the file; `text` is what it now holds.
    Formatted { by: String, text: String },
    /// The formatter failed; the file keeps the tool's text.
    Failed { by: String, why: String },
}

/// One question to the language server (positions 1-based, as `read` numbers lines).
#[derive(Debug, Clone, PartialEq)]
pub struct Inquiry {
    pub operation: Operation,
    /// The file asked about (absolute); for a workspace search, any file of the language.
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    /// The symbol searched for (workspace symbols).
    pub query: String,
}

/// What the `lsp` tool can ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Definition,
    References,
    Hover,
    Implementation,
    DocumentSymbols,
    WorkspaceSymbols,
}

/// A place the server answered with (1-based line and column) and what it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    /// A symbol's name and kind, when the answer is a symbol.
    pub label: Option<String>,
}

/// The server's answer: places, or text (hover).
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Places(Vec<Place>),
    Text(String),
}

/// The language servers and formatters, seen from a tool.
pub trait CodePort: Send + Sync {
    /// The model read `path`: its language server (if any) starts and opens it, in the
    /// background; returns at once.
    fn opened(&self, path: &Path, text: &str);

    /// Runs the formatter that applies to `path` (which holds what the tool wrote), in
    /// `sandbox`.
    fn format<'a>(&'a self, path: &'a Path, sandbox: &'a Policy) -> BoxFuture<'a, Formatting>;

    /// The language server's errors after `path` came to hold `text`, as the block the model
    /// reads; None when the file is clean or no server applies.
    fn check<'a>(&'a self, path: &'a Path, text: &'a str) -> BoxFuture<'a, Option<String>>;

    /// Asks the server of `inquiry.path` a question; an error is the reason in words.
    fn inquire(&self, inquiry: Inquiry) -> BoxFuture<'_, Result<Answer, String>>;
}

/// No language servers or formatters (the headless runner's tests, unit tests).
pub struct NoCode;

impl CodePort for NoCode {
    fn opened(&self, _path: &Path, _text: &str) {}

    fn format<'a>(&'a self, _path: &'a Path, _sandbox: &'a Policy) -> BoxFuture<'a, Formatting> {
        Box::pin(async { Formatting::None })
    }

    fn check<'a>(&'a self, _path: &'a Path, _text: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async { None })
    }

    fn inquire(&self, _inquiry: Inquiry) -> BoxFuture<'_, Result<Answer, String>> {
        Box::pin(async { Err("No language server is available here.".to_owned()) })
    }
}
