//! The tool registry and the `Tool` trait every tool implements, one file per tool. A tool
//! describes itself (kind, permission key, concurrency, input schema), gets a `ToolContext`
//! and never imports the session layer. `files/`: read, write, edit, apply_patch; `shell/`:
//! bash, its checks and sandbox, process groups; `search/`: glob, grep, list; beside them the
//! context and ports a call reaches, its errors and saved output, webfetch, todo and task.

mod arguments;
pub mod context;
mod error;
pub mod files;
mod goal;
mod lsp;
mod memory;
mod names;
pub mod plan;
pub mod ports;
pub mod question;
pub mod reach;
pub mod saved;
mod schema;
pub mod search;
pub mod shell;
mod task;
mod task_control;
mod todo;
pub mod truncate;
mod webfetch;
pub mod websearch;

use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde_json::Value;

pub use arguments::repair_json;
pub use error::{FileAction, PortError, ToolError};
pub use ports::{
    ClientPort, Need, NoSubagents, PermissionCheck, PermissionDecision, PermissionGate,
    PermissionRequest, SubagentCall, SubagentOutcome, SubagentPort, TerminalExit, TerminalOutput,
    TerminalPort, TodoPort, ToolContext, ToolProgress, UnattendedPort, no_background_child,
};
pub use schema::{input_schema, parse_input};

use crate::message::Location;
pub use crate::message::{Attachment, FileDiff, ToolKind};
use crate::provider::ToolSpec;

/// What a tool returns to the model (and the editor).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    /// A short line for the editor: the path, the command, the count.
    pub title: String,
    /// The text the model reads.
    pub output: String,
    /// The tool's own facts about the call (an exit code, a count), shown as raw output.
    pub metadata: Value,
    /// File changes made, with whole-file before and after, for the editor's review.
    pub diffs: Vec<FileDiff>,
    /// Where the call looked or changed things.
    pub locations: Vec<Location>,
    /// Images the model should see (a screenshot, a diagram that was read).
    pub attachments: Vec<Attachment>,
    /// The editor's terminal the command ran in.
    pub terminal_id: Option<String>,
    /// The turn ends after this step, showing this text as the agent's message: a question
    /// the person answers in their next prompt.
    pub ends_turn: Option<String>,
}

/// A tool the model can call.
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    /// What kind of work its calls do, for the editor.
    fn kind(&self) -> ToolKind;
    /// The permission key its calls are checked under (the file-changing tools share `edit`).
    fn permission(&self) -> &str {
        self.name()
    }
    /// Every key a rule may name it by; a deny of any one of them withholds it.
    fn permission_keys(&self) -> Vec<&str> {
        vec![self.permission()]
    }
    /// Whether its calls may change the project's files (a snapshot is taken before them).
    fn may_change_files(&self) -> bool {
        !matches!(
            self.kind(),
            ToolKind::Read | ToolKind::Search | ToolKind::Fetch
        )
    }
    /// Whether several calls of it in one message run at the same time (others run in order).
    fn concurrent(&self) -> bool {
        false
    }
    /// Its name in Claude Code, when it has one: hooks match it, and skills' `allowed-tools`
    /// may name it so.
    fn claude_name(&self) -> Option<String> {
        None
    }
    /// Other agents' names for it, folded (lower case, no `_` or `-`): a call by one of them
    /// runs this tool when it picks exactly one of the tools offered.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// Teaches the model when and how to use the tool.
    fn description(&self) -> &str;
    /// The description as offered to a caller who may delegate to `subagents`.
    fn description_for(&self, subagents: &[(String, String)]) -> String {
        let _ = subagents;
        self.description().to_owned()
    }
    /// JSON Schema of the input object (generated from the tool's input type).
    fn parameters(&self) -> Value;
    /// The editor's title and locations for a call, from its input, before it runs.
    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        let _ = (input, cwd);
        (self.name().to_owned(), Vec::new())
    }
    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}

/// A string field of a call's input, for titles.
pub fn input_str<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// The title and location of a call about one file (`filePath`).
pub fn describe_file(input: &Value, cwd: &Path) -> (String, Vec<Location>) {
    match input_str(input, "filePath") {
        Some(path) => {
            let abs = crate::paths::resolve_in(cwd, path);
            (
                crate::paths::relative_to(cwd, &abs),
                vec![Location::file(abs)],
            )
        }
        None => (String::new(), Vec::new()),
    }
}

/// The title (the pattern) and location (the directory) of a search call.
pub fn describe_search(input: &Value, cwd: &Path) -> (String, Vec<Location>) {
    let title = input_str(input, "pattern").unwrap_or_default().to_owned();
    let dir = crate::paths::resolve_in(cwd, input_str(input, "path").unwrap_or("."));
    (title, vec![Location::file(dir)])
}

/// The tools available to sessions, by name. Cheap to clone (shared).
#[derive(Clone)]
pub struct Registry {
    tools: Arc<IndexMap<String, Registered>>,
}

/// A tool and its input schema, generated once, when a model is first told about it (not
/// when a session opens: `session/new` pays nothing for schemas).
#[derive(Clone)]
struct Registered {
    tool: Arc<dyn Tool>,
    parameters: Arc<std::sync::OnceLock<Value>>,
}

impl Registry {
    /// The built-in tools.
    pub fn builtin() -> Self {
        let mut registry = Self {
            tools: Arc::default(),
        };
        registry.register(Arc::new(shell::bash::BashTool));
        registry.register(Arc::new(files::read::ReadTool));
        registry.register(Arc::new(search::glob::GlobTool));
        registry.register(Arc::new(search::grep::GrepTool));
        registry.register(Arc::new(files::edit::EditTool));
        registry.register(Arc::new(files::write::WriteTool));
        registry.register(Arc::new(webfetch::WebFetchTool));
        registry.register(Arc::new(todo::TodoWriteTool));
        registry.register(Arc::new(todo::TodoReadTool));
        registry.register(Arc::new(task::TaskTool));
        registry.register(Arc::new(task_control::TaskOutputTool));
        registry.register(Arc::new(task_control::TaskCancelTool));
        registry.register(Arc::new(files::apply_patch::ApplyPatchTool));
        registry.register(Arc::new(search::list::ListTool));
        registry.register(Arc::new(question::QuestionTool));
        registry.register(Arc::new(plan::ExitPlanTool));
        registry.register(Arc::new(goal::GoalTool));
        registry.register(Arc::new(memory::MemoryTool));
        registry.register(Arc::new(shell::jobs::tools::BashOutputTool));
        registry.register(Arc::new(shell::jobs::tools::BashKillTool));
        registry.register(Arc::new(lsp::LspTool));
        registry
    }

    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        let parameters = Arc::default();
        Arc::make_mut(&mut self.tools)
            .insert(tool.name().to_owned(), Registered { tool, parameters });
    }

    /// The names of every registered tool.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The tool `name` means: itself, or the one tool it names in another case or under
    /// another agent's name (`Bash`, `str_replace_based_edit_tool`); else `name` unchanged.
    pub fn resolve(&self, name: &str) -> String {
        let known: Vec<(&str, &[&str])> = self
            .tools
            .values()
            .map(|r| (r.tool.name(), r.tool.aliases()))
            .collect();
        names::resolve(name, &known).unwrap_or(name).to_owned()
    }

    /// The built-in tool Claude Code calls `claude` (`Bash` → `bash`), if any.
    pub fn by_claude_name(&self, claude: &str) -> Option<&Arc<dyn Tool>> {
        let named = |r: &&Registered| r.tool.claude_name().as_deref() == Some(claude);
        self.tools.values().find(named).map(|r| &r.tool)
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name).map(|registered| &registered.tool)
    }

    /// The kind of `name`'s calls, if it is a known tool.
    pub fn kind_of(&self, name: &str) -> Option<ToolKind> {
        self.get(name).map(|tool| tool.kind())
    }

    /// Whether a call of `name` may change files (an unknown tool's call never runs).
    pub fn may_change_files(&self, name: &str) -> bool {
        self.get(name).is_some_and(|tool| tool.may_change_files())
    }

    /// What the model is told about the tools `offered` keeps.
    pub fn specs(
        &self,
        offered: impl Fn(&dyn Tool) -> bool,
        subagents: &[(String, String)],
    ) -> Vec<ToolSpec> {
        self.tools
            .values()
            .filter(|registered| offered(registered.tool.as_ref()))
            .map(|Registered { tool, parameters }| ToolSpec {
                name: tool.name().to_owned(),
                description: tool.description_for(subagents),
                parameters: parameters.get_or_init(|| tool.parameters()).clone(),
            })
            .collect()
    }
}
