//! Drives the real `tandem acp` binary over its stdin/stdout with raw JSON-RPC lines, so
//! tests assert on the exact JSON an editor receives. Each test gets its own dirs.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(30);

/// An isolated home, data dir, config dir and project for one test.
pub struct TestEnv {
    pub root: TempDir,
    pub project: PathBuf,
    pub data: PathBuf,
    pub config_dir: PathBuf,
}

impl TestEnv {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        let data = root.path().join("data");
        let config_dir = root.path().join("config");
        for dir in [&project, &data, &config_dir] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(project.join("README.md"), "# demo\n").unwrap();
        std::fs::create_dir_all(project.join("src")).unwrap();
        Self {
            project: std::fs::canonicalize(project).unwrap(),
            data,
            config_dir,
            root,
        }
    }

    /// A config whose model `mock/test-model` is served by `url` in the `api` wire format.
    pub fn mock_config(url: &str, api: &str) -> Value {
        // Most tests script several steps past a refused call, so the turn goes on after
        // one here; tests/it/permissions.rs checks the default (the turn ends).
        json!({
            "continue_loop_on_deny": true,
            "model": "mock/test-model",
            "provider": {"mock": {
                "api": api,
                "options": {"baseURL": url, "apiKey": "sk-test", "retryDelay": 20, "maxRetries": 2},
                "models": {"test-model": {"name": "Test Model",
                    "limit": {"context": 100000, "output": 4096},
                    "cost": {"input": 1.0, "output": 2.0}}}
            }}
        })
    }

    /// Writes the project's `tandem.json` and trusts the folder as it then is (`tandem
    /// trust`), as the person whose project it is would; trust tests write it untrusted.
    pub fn write_project_config(&self, config: &Value) {
        self.write_untrusted_config(config);
        self.trust();
    }

    /// Writes the project's `tandem.json` without trusting the folder.
    pub fn write_untrusted_config(&self, config: &Value) {
        std::fs::write(
            self.project.join("tandem.json"),
            serde_json::to_string_pretty(config).unwrap(),
        )
        .unwrap();
    }

    /// `tandem trust` in the project: trusts the folder as it is now.
    pub fn trust(&self) {
        let output = self.command(&["trust"]).output().unwrap();
        assert!(
            output.status.success(),
            "tandem trust failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    pub fn write_global_config(&self, text: &str) {
        std::fs::write(self.config_dir.join("tandem.json"), text).unwrap();
    }

    pub fn db_path(&self) -> PathBuf {
        self.data.join("tandem.db")
    }

    pub fn spawn(&self) -> AcpProcess {
        self.spawn_with(&[])
    }

    /// `tandem <args>` with a clean environment: this test's home, data and config dirs, run
    /// in the project.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        self.program(Path::new(env!("CARGO_BIN_EXE_tandem")), args)
    }

    /// Any program with the same clean environment (a client that starts `tandem` itself).
    pub fn program(&self, program: &Path, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.path())
            .env("TANDEM_DATA_DIR", &self.data)
            .env("TANDEM_CONFIG_DIR", &self.config_dir)
            .env("TANDEM_LOG", "warn")
            .current_dir(&self.project);
        command
    }

    /// Starts `tandem acp` with a clean environment plus `extra`.
    pub fn spawn_with(&self, extra: &[(&str, &str)]) -> AcpProcess {
        self.spawn_acp(&[], extra)
    }

    /// `tandem acp <args>` with `extra` variables.
    pub fn spawn_acp(&self, args: &[&str], extra: &[(&str, &str)]) -> AcpProcess {
        let mut line = vec!["acp"];
        line.extend_from_slice(args);
        let mut command = Command::from(self.command(&line));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (name, value) in extra {
            command.env(name, value);
        }
        AcpProcess::start(command)
    }
}

/// A running agent process and what it has said.
pub struct AcpProcess {
    pub child: Child,
    stdin: ChildStdin,
    lines: mpsc::UnboundedReceiver<Value>,
    pub stderr: Arc<Mutex<String>>,
    next_id: i64,
    /// Every `session/update` params object received, in order.
    pub updates: Vec<Value>,
    /// Every raw line received from the agent, in order.
    pub received: Vec<Value>,
    /// The option id chosen for permission requests; `None` answers "cancelled".
    pub permission_choice: Option<String>,
    /// When set, permission requests are kept in `held` instead of being answered.
    pub hold_permissions: bool,
    pub held: Vec<Value>,
    /// When set, the driver serves `fs/*` and `terminal/*` as an editor would (see `editor`).
    pub editor: Option<super::editor::FakeEditor>,
    /// The result `elicitation/create` requests get; `None` keeps them in `held`.
    pub elicitation_reply: Option<Value>,
}

impl AcpProcess {
    /// Starts an agent from a prepared command (piped stdio).
    pub fn start_command(command: Command) -> Self {
        Self::start(command)
    }

    fn start(mut command: Command) -> Self {
        let mut child = command.spawn().expect("the tandem binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr_pipe = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let value: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Self {
            child,
            stdin,
            lines,
            stderr,
            next_id: 0,
            updates: Vec::new(),
            received: Vec::new(),
            permission_choice: None,
            hold_permissions: false,
            held: Vec::new(),
            editor: None,
            elicitation_reply: None,
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub async fn send_raw(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// Sends a request and returns its id without waiting.
    pub async fn start_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// The next message, after handling it (updates are recorded, reverse requests answered).
    pub async fn next_message(&mut self) -> Value {
        let message = tokio::time::timeout(WAIT, self.lines.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no message from the agent within {WAIT:?}; stderr:\n{}",
                    self.stderr()
                )
            })
            .unwrap_or_else(|| panic!("the agent closed stdout; stderr:\n{}", self.stderr()));
        self.received.push(message.clone());
        match message.get("method").and_then(Value::as_str) {
            Some("session/update") => self.updates.push(message["params"].clone()),
            Some("session/request_permission") if self.hold_permissions => {
                self.held.push(message.clone());
            }
            Some("elicitation/create") => match &self.elicitation_reply {
                Some(result) => {
                    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                    self.send(&answer).await;
                }
                None => self.held.push(message.clone()),
            },
            Some("session/request_permission") => {
                let outcome = match &self.permission_choice {
                    Some(option) => json!({"outcome": "selected", "optionId": option}),
                    None => json!({"outcome": "cancelled"}),
                };
                let answer =
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}});
                self.send(&answer).await;
            }
            Some(method) if self.editor.is_some() && super::editor::serves(method) => {
                let editor = self.editor.as_mut().unwrap();
                let answer = match editor.answer(method, &message["params"]) {
                    Ok(result) => json!({"jsonrpc": "2.0", "id": message["id"], "result": result}),
                    Err(error) => json!({"jsonrpc": "2.0", "id": message["id"],
                        "error": {"code": -32603, "message": error}}),
                };
                self.send(&answer).await;
            }
            Some(_) if message.get("id").is_some() => {
                let answer = json!({"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": -32601, "message": "not supported by the test client"}});
                self.send(&answer).await;
            }
            _ => {}
        }
        message
    }

    /// Answers a held permission request with `option`.
    pub async fn answer_permission(&mut self, request: &Value, option: &str) {
        let answer = json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"outcome": {"outcome": "selected", "optionId": option}}});
        self.send(&answer).await;
    }

    /// The permission requests received so far.
    pub fn permission_requests(&self) -> Vec<Value> {
        self.received
            .iter()
            .filter(|m| m["method"] == "session/request_permission")
            .cloned()
            .collect()
    }

    /// The workspace-trust questions received so far (a folder's or a plugin's).
    pub fn trust_questions(&self) -> Vec<Value> {
        self.permission_requests()
            .into_iter()
            .filter(|r| {
                (r["params"]["toolCall"]["toolCallId"].as_str())
                    .is_some_and(|id| id.starts_with("trust-"))
            })
            .collect()
    }

    /// Waits for the response to request `id`.
    pub async fn response(&mut self, id: i64) -> Value {
        loop {
            let message = self.next_message().await;
            if message.get("method").is_none() && message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// Sends a request and waits for its response.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.start_request(method, params).await;
        self.response(id).await
    }

    /// Waits until an update matching `predicate` has arrived (including earlier ones).
    pub async fn wait_for_update(&mut self, predicate: impl Fn(&Value) -> bool) -> Value {
        loop {
            if let Some(found) = self.updates.iter().find(|u| predicate(u)) {
                return found.clone();
            }
            self.next_message().await;
        }
    }

    pub async fn initialize(&mut self) -> Value {
        self.initialize_with(
            json!({"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false}),
        )
        .await
    }

    /// `initialize` with these client capabilities.
    pub async fn initialize_with(&mut self, capabilities: Value) -> Value {
        let response = self
            .request(
                "initialize",
                json!({"protocolVersion": 1, "clientCapabilities": capabilities,
                       "clientInfo": {"name": "tandem-tests", "version": "0"}}),
            )
            .await;
        assert!(
            response.get("result").is_some(),
            "initialize failed: {response}"
        );
        response
    }

    pub async fn new_session(&mut self, cwd: &Path) -> String {
        let response = self
            .request("session/new", json!({"cwd": cwd, "mcpServers": []}))
            .await;
        response["result"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("session/new failed: {response}"))
            .to_owned()
    }

    pub async fn prompt(&mut self, session_id: &str, text: &str) -> Value {
        self.request(
            "session/prompt",
            json!({"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}),
        )
        .await
    }

    /// The `update` objects received so far with the given `sessionUpdate` tag.
    pub fn updates_of(&self, kind: &str) -> Vec<Value> {
        self.updates
            .iter()
            .map(|u| u["update"].clone())
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    /// The concatenated text of the agent message chunks received so far.
    pub fn agent_text(&self) -> String {
        self.updates_of("agent_message_chunk")
            .iter()
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// Closes stdin and waits for the process to exit.
    pub async fn shutdown(mut self) -> std::process::ExitStatus {
        drop(self.stdin);
        tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the agent exits when stdin closes")
            .unwrap()
    }
}
