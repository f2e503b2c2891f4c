//! An external agent's process: started in a process group of its own that dies with Tandem
//! (the watchdog catches a SIGKILL), stdin and stdout for ACP, stderr logged and its last
//! lines kept for the messages that say why the agent failed.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncBufReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::config::AcpAgentConfig;
use crate::process::groups::{GroupGuard, die_with_parent};

/// How many of the agent's last stderr lines are kept.
const TAIL_LINES: usize = 20;

/// The last lines an agent wrote to stderr.
#[derive(Default)]
pub struct Tail(Mutex<VecDeque<String>>);

impl Tail {
    fn push(&self, line: String) {
        let mut lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines, ready to quote (empty when it wrote none).
    pub fn quoted(&self) -> String {
        let lines = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if lines.is_empty() {
            return String::new();
        }
        let body: Vec<&str> = lines.iter().map(String::as_str).collect();
        format!(
            "\nThe last lines it wrote to stderr:\n    {}",
            body.join("\n    ")
        )
    }
}

/// A running agent: killed (its whole group) when dropped, and its private temp dir removed.
pub struct Process {
    pub child: Child,
    group: GroupGuard,
    _temp: Option<tempfile::TempDir>,
}

impl Process {
    pub fn kill(&mut self) {
        self.group.kill();
    }
}

/// Starts `spec`'s command in `cwd`; its stderr goes to the log and `tail`.
pub fn spawn(
    name: &str,
    spec: &AcpAgentConfig,
    (cwd, standing): (&Path, &crate::config::Standing),
    confined: Option<&crate::sandbox::Policy>,
    tail: Arc<Tail>,
) -> Result<(Process, ChildStdin, ChildStdout), String> {
    let Some((program, args)) = spec.command.split_first() else {
        return Err("its `acp.command` is empty".into());
    };
    // Found where `tandem config check` looks: where the person's environment finds it, then
    // the project's node_modules/.bin or virtualenv when the folder is trusted with it.
    let found = crate::lsp::locate::program(program, cwd, cwd, standing);
    let mut command = tokio::process::Command::new(found.as_deref().unwrap_or(Path::new(program)));
    command
        .args(args)
        .envs(&spec.env)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    die_with_parent(&mut command);
    // A confined agent gets a temp dir of its own: the system's is shared with everything else
    // (and the project may lie beneath it).
    let mut temp = None;
    let confined = confined.map(|policy| {
        let mut policy = policy.clone();
        if let Ok(private) = tempfile::Builder::new().prefix("tandem-agent-").tempdir() {
            command.env("TMPDIR", private.path());
            policy.writable.push(private.path().to_owned());
            temp = Some(private);
        }
        policy
    });
    // Kept until the child has started: its ruleset is handed over between fork and exec.
    let prepared = match confined.as_ref().map(crate::sandbox::prepare) {
        Some(Ok(prepared)) => prepared,
        Some(Err(why)) => return Err(format!("it cannot be confined: {why}")),
        None => None,
    };
    if let Some(prepared) = &prepared {
        prepared.apply(&mut command);
    }
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("`{program}` was not found: is it installed and on PATH?")
        }
        _ => format!("`{program}` could not be started: {e}"),
    })?;
    let group = GroupGuard::new(child.id().map(|pid| pid as i32));
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    if let Some(stderr) = child.stderr.take() {
        let name = name.to_owned();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::info!(agent = %name, "{line}");
                tail.push(line);
            }
        });
    }
    let process = Process {
        child,
        group,
        _temp: temp,
    };
    Ok((process, stdin, stdout))
}
