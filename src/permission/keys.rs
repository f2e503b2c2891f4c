//! The permission keys Tandem raises and checks, each named once with what it governs. A rule
//! names one of these or a custom or MCP tool's own name; code that raises or checks a key
//! uses these constants, so a misspelt built-in key does not compile. `BUILT_IN` is what the
//! config schema offers.

/// Reading a file's content (the `read` tool, files a command reads, a language server's).
pub const READ: &str = "read";
/// Changing a file: `edit`, `write`, `apply_patch`, files a command writes.
pub const EDIT: &str = "edit";
/// Running a command line, by its commands.
pub const BASH: &str = "bash";
/// Finding files by name.
pub const GLOB: &str = "glob";
/// Searching file contents.
pub const GREP: &str = "grep";
/// Listing a directory.
pub const LIST: &str = "list";
/// Asking a language server (definitions, references, symbols, diagnostics).
pub const LSP: &str = "lsp";
/// Fetching a URL.
pub const WEBFETCH: &str = "webfetch";
/// Searching the web, by the query.
pub const WEBSEARCH: &str = "websearch";
/// Running a subagent in a child session.
pub const TASK: &str = "task";
/// Loading a skill's instructions.
pub const SKILL: &str = "skill";
/// Asking the person a question.
pub const QUESTION: &str = "question";
/// Writing the todo list (the editor's plan).
pub const TODOWRITE: &str = "todowrite";
/// Reading the todo list.
pub const TODOREAD: &str = "todoread";
/// Handing plan mode's plan to the person for approval (plan mode's own; denied elsewhere).
pub const EXIT_PLAN: &str = "exit_plan";
/// A path outside the project (and the folders Tandem keeps for the session).
pub const EXTERNAL_DIRECTORY: &str = "external_directory";
/// The same tool called with the same input three times in a row.
pub const DOOM_LOOP: &str = "doom_loop";
/// Running a command outside the sandbox after it was refused inside.
pub const SANDBOX_ESCAPE: &str = "sandbox_escape";
/// An MCP tool its server does not mark read-only (it may write).
pub const MCP_SIDE_EFFECTS: &str = "mcp_side_effects";
/// An external agent's tool call Tandem cannot see into.
pub const EXTERNAL_TOOL: &str = "external_tool";
/// The model proposing a goal the session keeps working toward.
pub const GOAL: &str = "goal";
/// Changing the agent's memory (a note kept or dropped), by scope.
pub const MEMORY: &str = "memory";

/// Every built-in key with what it governs, for the config schema.
pub const BUILT_IN: [(&str, &str); 22] = [
    (READ, "Reading a file's content"),
    (
        EDIT,
        "Changing a file (edit, write, apply_patch, files a command writes)",
    ),
    (BASH, "Running a command line, by its commands"),
    (GLOB, "Finding files by name"),
    (GREP, "Searching file contents"),
    (LIST, "Listing a directory"),
    (LSP, "Asking a language server"),
    (WEBFETCH, "Fetching a URL"),
    (WEBSEARCH, "Searching the web, by the query"),
    (TASK, "Running a subagent, by its name"),
    (SKILL, "Loading a skill, by its name"),
    (QUESTION, "Asking the person a question"),
    (TODOWRITE, "Writing the todo list"),
    (TODOREAD, "Reading the todo list"),
    (
        EXIT_PLAN,
        "Handing plan mode's plan to the person for approval",
    ),
    (EXTERNAL_DIRECTORY, "A path outside the project"),
    (DOOM_LOOP, "The same call three times in a row"),
    (
        SANDBOX_ESCAPE,
        "Running a command outside the sandbox after it was refused inside",
    ),
    (
        MCP_SIDE_EFFECTS,
        "An MCP tool its server does not mark read-only",
    ),
    (
        EXTERNAL_TOOL,
        "An external agent's tool call Tandem cannot see into",
    ),
    (
        GOAL,
        "Setting a goal the session keeps working toward, turn after turn",
    ),
    (
        MEMORY,
        "Keeping or dropping a note in the agent's memory, by scope (project or person)",
    ),
];
