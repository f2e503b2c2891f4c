//! One running language server: started in a process group of its own that dies with Tandem,
//! initialized for its root, kept in step with the files the tools open and change (full
//! text, versioned), and shut down politely, then killed.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use super::catalog::ServerSpec;
use super::diagnostics::DiagnosticStore;
use super::position::uri;
use super::rpc::{Handler, Rpc};

/// How many of its last stderr lines a failure quotes.
const STDERR_LINES: usize = 8;
/// How long `initialize` may take (a large project's first answer can be slow).
const INITIALIZE_WAIT: Duration = Duration::from_secs(60);

/// A server that answered `initialize`.
pub(super) struct Server {
    pub pid: u32,
    rpc: Arc<Rpc>,
    pub diagnostics: Arc<DiagnosticStore>,
    /// The version last sent for each open file.
    versions: Mutex<HashMap<String, i64>>,
    pub stderr: Tail,
    settings: Option<Value>,
    group: Mutex<crate::process::groups::GroupGuard>,
    /// The workspace folders the server has been given (its root first).
    folders: Folders,
    /// It takes `workspace/didChangeWorkspaceFolders` (it said so at `initialize`).
    takes_folder_changes: bool,
}

/// A server's workspace folders, shared with the handler that answers
/// `workspace/workspaceFolders`.
#[derive(Clone, Default)]
struct Folders(Arc<Mutex<Vec<PathBuf>>>);

impl Folders {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PathBuf>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn json(&self) -> Value {
        Value::Array(self.lock().iter().map(|f| folder(f)).collect())
    }
}

/// One workspace folder as LSP names it.
fn folder(path: &Path) -> Value {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    json!({"uri": uri(path), "name": name})
}

/// The last lines a server wrote to stderr.
#[derive(Clone, Default)]
pub(super) struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == STDERR_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    pub fn text(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// Answers what a server asks its client.
struct Client {
    diagnostics: Arc<DiagnosticStore>,
    settings: Option<Value>,
    folders: Folders,
}

impl Handler for Client {
    fn notified(&self, method: &str, params: Value) {
        if method == "textDocument/publishDiagnostics" {
            self.diagnostics.publish(params);
        }
    }

    fn asked(&self, method: &str, params: &Value) -> Result<Value, String> {
        match method {
            "workspace/configuration" => {
                let items = params.get("items").and_then(Value::as_array);
                let answers = items.into_iter().flatten().map(|item| {
                    let section = item.get("section").and_then(Value::as_str);
                    match (&self.settings, section) {
                        (Some(settings), Some(section)) => section
                            .split('.')
                            .try_fold(settings, |v, key| v.get(key))
                            .cloned()
                            .unwrap_or(Value::Null),
                        (Some(settings), None) => settings.clone(),
                        (None, _) => Value::Null,
                    }
                });
                Ok(Value::Array(answers.collect()))
            }
            "workspace/workspaceFolders" => Ok(self.folders.json()),
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest" => Ok(Value::Null),
            "workspace/applyEdit" => Ok(json!({"applied": false})),
            _ => Err(format!("Tandem does not handle {method}")),
        }
    }
}

impl Server {
    /// Starts `spec`'s program (found at `program`) for `root` and initializes it, with
    /// `root` and the workspace's `others` roots as its workspace folders.
    /// `sandbox` confines a server whose program lies in the project (a model could have put it
    /// there), as `bash` is confined.
    pub async fn start(
        spec: &ServerSpec,
        program: &Path,
        (root, others): (&Path, &[PathBuf]),
        sandbox: Option<&crate::sandbox::Policy>,
    ) -> Result<Arc<Self>, String> {
        let (child, stdin, stdout, stderr) = spawn(spec, program, root, sandbox)?;
        let pid = child.id().unwrap_or_default();
        let group = crate::process::groups::GroupGuard::new(child.id().map(|p| p as i32));
        // The child is waited on so it never lingers as a zombie; its group is killed by the guard.
        let mut child = child;
        tokio::spawn(async move {
            let _ = child.wait().await;
        });
        let diagnostics = Arc::new(DiagnosticStore::default());
        let folders = Folders::default();
        folders.lock().push(root.to_owned());
        folders
            .lock()
            .extend(others.iter().filter(|o| *o != root).cloned());
        let client = Arc::new(Client {
            diagnostics: diagnostics.clone(),
            settings: spec.initialization.clone(),
            folders: folders.clone(),
        });
        let rpc = Rpc::start(stdout, stdin, client);
        let mut server = Self {
            pid,
            rpc,
            diagnostics,
            versions: Mutex::default(),
            stderr,
            settings: spec.initialization.clone(),
            group: Mutex::new(group),
            folders,
            takes_folder_changes: false,
        };
        let params = initialize_params(&uri(root), server.folders.json(), server.settings.clone());
        let answer = server
            .rpc
            .request("initialize", params, INITIALIZE_WAIT)
            .await;
        let answer = match answer {
            Ok(answer) => answer,
            Err(why) => {
                // A server that failed has usually said why just before.
                let _ = tokio::time::timeout(Duration::from_millis(200), server.exited()).await;
                server.kill();
                return Err(with_tail(
                    format!("it did not initialize: {why}"),
                    &server.stderr,
                ));
            }
        };
        server.takes_folder_changes = takes_folder_changes(&answer);
        let server = Arc::new(server);
        server.rpc.notify("initialized", json!({}));
        if let Some(settings) = &server.settings {
            server.rpc.notify(
                "workspace/didChangeConfiguration",
                json!({"settings": settings}),
            );
        }
        Ok(server)
    }

    /// Ended: its output closed (it exited, crashed or was killed).
    pub fn exited(&self) -> tokio_util::sync::WaitForCancellationFuture<'_> {
        self.rpc.closed.cancelled()
    }

    /// Adds the workspace roots in `wanted` the server does not have yet as workspace folders
    /// (another session sharing it has more roots), telling it when it takes such changes.
    pub fn add_folders(&self, wanted: &[PathBuf]) {
        let mut folders = self.folders.lock();
        let mut added = Vec::new();
        for path in wanted {
            if !folders.contains(path) {
                folders.push(path.clone());
                added.push(folder(path));
            }
        }
        if !added.is_empty() && self.takes_folder_changes {
            self.rpc.notify(
                "workspace/didChangeWorkspaceFolders",
                json!({"event": {"added": added, "removed": []}}),
            );
        }
    }

    pub fn is_alive(&self) -> bool {
        !self.rpc.closed.is_cancelled()
    }

    /// Opens `path` with `text` unless the server has it already: a file read warms its server
    /// without ever putting back older text than a check that got there first.
    pub fn open_if_new(&self, path: &Path, text: &str) {
        let uri = uri(path);
        let mut versions = self.versions.lock().unwrap_or_else(|p| p.into_inner());
        if !versions.contains_key(&uri) {
            self.open(&mut versions, path, uri, text);
        }
    }

    /// Gives the server `text` as `path`'s content (opening it the first time); the version sent.
    pub fn sync(&self, path: &Path, text: &str) -> i64 {
        let uri = uri(path);
        let mut versions = self.versions.lock().unwrap_or_else(|p| p.into_inner());
        match versions.get_mut(&uri) {
            Some(version) => {
                *version += 1;
                self.rpc.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": *version},
                           "contentChanges": [{"text": text}]}),
                );
                *version
            }
            None => {
                self.open(&mut versions, path, uri, text);
                1
            }
        }
    }

    /// Opens `path` (version 1), with the versions' lock held.
    fn open(&self, versions: &mut HashMap<String, i64>, path: &Path, uri: String, text: &str) {
        self.rpc.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language_id(path),
                                    "version": 1, "text": text}}),
        );
        versions.insert(uri, 1);
    }

    pub async fn request(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, String> {
        self.rpc.request(method, params, limit).await
    }

    /// `shutdown` and `exit`, waiting at most `limit` for the first; then the group is killed.
    pub async fn stop(&self, limit: Duration) {
        if self.is_alive() {
            let _ = self.rpc.request("shutdown", Value::Null, limit).await;
            self.rpc.notify("exit", Value::Null);
            let _ = tokio::time::timeout(Duration::from_millis(100), self.exited()).await;
        }
        self.kill();
    }

    pub fn kill(&self) {
        self.group.lock().unwrap_or_else(|p| p.into_inner()).kill();
    }
}

/// The server's process, in a group of its own that dies with Tandem, with its pipes; its
/// stderr is read into a tail as it comes (and logged).
fn spawn(
    spec: &ServerSpec,
    program: &Path,
    root: &Path,
    sandbox: Option<&crate::sandbox::Policy>,
) -> Result<
    (
        tokio::process::Child,
        tokio::process::ChildStdin,
        tokio::process::ChildStdout,
        Tail,
    ),
    String,
> {
    let mut command = tokio::process::Command::new(program);
    command.args(&spec.command[1..]).envs(&spec.env);
    let mut child = crate::process::program::start(command, root, Stdio::piped(), sandbox)?;
    let stderr = Tail::default();
    if let Some(pipe) = child.stderr.take() {
        let tail = stderr.clone();
        let name = spec.name.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(pipe).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %name, "{line}");
                tail.push(line);
            }
        });
    }
    match (child.stdin.take(), child.stdout.take()) {
        (Some(stdin), Some(stdout)) => Ok((child, stdin, stdout, stderr)),
        _ => Err("its pipes could not be opened".into()),
    }
}

/// `why`, then the server's last stderr lines when it wrote any.
pub(super) fn with_tail(why: String, stderr: &Tail) -> String {
    match stderr.text() {
        tail if tail.is_empty() => why,
        tail => format!("{why}; its last output:\n{tail}"),
    }
}

/// Whether a server's `initialize` answer says it takes `workspace/didChangeWorkspaceFolders`
/// (`changeNotifications` is `true` or a registration id).
fn takes_folder_changes(answer: &Value) -> bool {
    let folders = &answer["capabilities"]["workspace"]["workspaceFolders"];
    folders["supported"] == true
        && matches!(
            &folders["changeNotifications"],
            Value::Bool(true) | Value::String(_)
        )
}

fn initialize_params(root_uri: &str, folders: Value, settings: Option<Value>) -> Value {
    json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "tandem", "version": env!("CARGO_PKG_VERSION")},
        "rootUri": root_uri,
        "workspaceFolders": folders,
        "initializationOptions": settings,
        "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "window": {"workDoneProgress": true},
            "workspace": {"configuration": true, "workspaceFolders": true,
                          "symbol": {"dynamicRegistration": false}},
            "textDocument": {
                "synchronization": {"dynamicRegistration": false, "didSave": false},
                "publishDiagnostics": {"versionSupport": true},
                "definition": {"linkSupport": true},
                "implementation": {"linkSupport": true},
                "references": {},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            },
        },
    })
}

/// The LSP language id of a file, from its extension.
fn language_id(path: &Path) -> &'static str {
    match super::locate::extension(path).as_str() {
        ".py" | ".pyi" => "python",
        ".ts" | ".mts" | ".cts" => "typescript",
        ".tsx" => "typescriptreact",
        ".js" | ".mjs" | ".cjs" => "javascript",
        ".jsx" => "javascriptreact",
        ".rs" => "rust",
        ".go" => "go",
        ".c" | ".h" => "c",
        ".cc" | ".cpp" | ".cxx" | ".hpp" | ".hh" | ".hxx" => "cpp",
        ".m" => "objective-c",
        ".mm" => "objective-cpp",
        ".sh" | ".bash" => "shellscript",
        ".rb" | ".rake" | ".gemspec" => "ruby",
        ".zig" | ".zon" => "zig",
        ".lua" => "lua",
        _ => "plaintext",
    }
}
