//! The editor's side of the pipe: starts the release binary and speaks ACP to it, reading
//! every line but parsing only answers (reading updates is the editor's cost, not Tandem's).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

pub struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Agent {
    pub fn spawn(data: &Path, config: &Path) -> Self {
        Self::spawn_with(data, config, &[])
    }

    /// Spawns with `extra` variables in its environment.
    pub fn spawn_with(data: &Path, config: &Path, extra: &[(&str, &Path)]) -> Self {
        Self::spawn_program(
            Path::new(env!("CARGO_BIN_EXE_tandem")),
            &["acp"],
            data,
            config,
            extra,
        )
    }

    /// Any ACP agent `program` with `args`, in the same clean environment.
    pub fn spawn_program(
        program: &Path,
        args: &[&str],
        data: &Path,
        config: &Path,
        extra: &[(&str, &Path)],
    ) -> Self {
        let mut child = Command::new(program)
            .args(args)
            .envs(extra.iter().copied())
            .env("TANDEM_DATA_DIR", data)
            .env("TANDEM_CONFIG_DIR", config)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the release binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    /// Spawns and answers `initialize`.
    pub fn ready(data: &Path, config: &Path) -> Self {
        let mut agent = Self::spawn(data, config);
        agent.request("initialize", initialize());
        agent
    }

    pub fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        self.next_id
    }

    /// Reads lines until the answer to `id`, handing each notification line to `observe`
    /// as it arrives; returns the answer and how many notifications came first.
    pub fn wait_observing(&mut self, id: u64, mut observe: impl FnMut(&str)) -> (Value, usize) {
        let mut notifications = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line).unwrap() == 0 {
                panic!("the agent closed stdout");
            }
            if line.starts_with(r#"{"jsonrpc":"2.0","method""#) {
                notifications += 1;
                observe(&line);
                continue;
            }
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("method").is_some() {
                notifications += 1;
                observe(&line);
            } else if message["id"] == json!(id) {
                return (message, notifications);
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> (Value, usize) {
        let id = self.send(method, params);
        self.wait_observing(id, |_| {})
    }

    /// Opens a session in `cwd` and returns its id.
    pub fn new_session(&mut self, cwd: &Path) -> Value {
        let (answer, _) = self.request("session/new", json!({"cwd": cwd, "mcpServers": []}));
        answer["result"]["sessionId"].clone()
    }

    /// Sends a one-word prompt and waits for its answer, observing updates on the way.
    pub fn prompt_observing(&mut self, session: &Value, observe: impl FnMut(&str)) -> Value {
        self.say_observing(session, "go", observe)
    }

    /// Sends `text` as a prompt and waits for its answer, observing updates on the way.
    pub fn say_observing(
        &mut self,
        session: &Value,
        text: &str,
        observe: impl FnMut(&str),
    ) -> Value {
        let id = self.send(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}),
        );
        let (answer, _) = self.wait_observing(id, observe);
        assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
        answer
    }

    pub fn rss_kb(&self) -> u64 {
        rss_kb(self.child.id())
    }

    pub fn pss_kb(&self) -> u64 {
        pss_kb(self.child.id())
    }
}

/// Proportional set size of process `pid` (its shared pages divided among those mapping
/// them), in KB.
pub fn pss_kb(pid: u32) -> u64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Resident memory of process `pid`, in KB.
pub fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn initialize() -> Value {
    json!({"protocolVersion": 1, "clientCapabilities": {}})
}

/// Makes `project` use the model `provider/model` from the provider config `provider`.
pub fn use_model(project: &Path, model: &str, providers: Value, extra: Value) {
    let mut config = json!({"model": model, "provider": providers});
    if let (Some(config), Value::Object(extra)) = (config.as_object_mut(), extra) {
        config.extend(extra);
    }
    std::fs::write(project.join("tandem.json"), config.to_string()).unwrap();
    // The bench's projects sit beside its data and config folders.
    trust(project, &project.parent().unwrap().join("data"));
}

/// Trusts `project` as it is now for the Tandem keeping its data in `data` (`tandem trust`),
/// as the person whose project it is would: its servers and agents may start.
pub fn trust(project: &Path, data: &Path) {
    let config = project.parent().unwrap().join("config");
    let status = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .arg("trust")
        .arg(project)
        .env("TANDEM_DATA_DIR", data)
        .env("TANDEM_CONFIG_DIR", config)
        .stdout(Stdio::null())
        .status()
        .expect("tandem trust runs");
    assert!(status.success(), "tandem trust failed");
}

/// A provider entry for the scripted model replaying `script`.
pub fn scripted(script: &Path) -> Value {
    json!({"api": "scripted", "options": {"script": script}})
}
