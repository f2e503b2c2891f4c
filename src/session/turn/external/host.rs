//! The session's answers to an external agent's requests during its turn: its file reads and
//! writes and its commands go through the same checks as Tandem's own `read`, `write` and
//! `bash` (the child's rules, bounded by every caller's, then the person); its permission
//! questions are decided by those rules first, and only an "ask" reaches the editor.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;

use super::decide;
use crate::id::MessageId;
use crate::message::ToolKind;
use crate::permission::keys;
use crate::remote::{Answer, Choice, OptionKind, PermissionAsk, RemoteHost, TerminalRequest};
use crate::session::turn::setup::TurnSetup;
use crate::tool::question::{Question, QuestionReply, QuestionRequest};
use crate::tool::shell::jobs::{Job, JobEnd};
use crate::tool::{TerminalExit, TerminalOutput, ToolContext, ToolError};

/// A command the agent started, and what it has printed (ACP terminals report all of it).
struct Terminal {
    job: Arc<Job>,
    output: String,
    limit: usize,
    truncated: bool,
}

pub(super) struct ExternalHost {
    base: ToolContext,
    next: AtomicU32,
    terminals: Mutex<HashMap<String, Terminal>>,
    /// The ids of those that ran in the editor's terminal (kept after release).
    editor_terminals: Mutex<std::collections::HashSet<String>>,
}

impl ExternalHost {
    pub fn new(setup: &TurnSetup, message_id: MessageId) -> Self {
        let base = ToolContext {
            session_id: setup.session_id.clone(),
            message_id,
            call_id: String::new(),
            tool: String::new(),
            kind: ToolKind::Other,
            input: Value::Null,
            cwd: setup.cwd.clone(),
            extra_roots: setup.extra_roots.clone(),
            cancel: setup.cancel.child_token(),
            client: setup.port.clone(),
            permissions: setup.gate.clone(),
            todos: setup.todos.clone(),
            subagents: setup.delegation.clone(),
            progress: Arc::new(|_| {}),
            sandbox: setup.sandbox.clone(),
            files: setup.files.clone(),
            jobs: setup.jobs.clone(),
            code: setup.code.clone(),
        };
        Self {
            base,
            next: AtomicU32::new(1),
            terminals: Mutex::default(),
            editor_terminals: Mutex::default(),
        }
    }

    /// A context for one request, as for a call of `tool` with `input`.
    pub fn context(&self, tool: &str, kind: ToolKind, input: Value) -> ToolContext {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.context_of(
            format!("{}-agent-{n}", self.base.message_id),
            tool,
            kind,
            input,
        )
    }

    /// A context for a question about the agent's own call `call_id` (the editor shows it).
    pub fn context_of(
        &self,
        call_id: String,
        tool: &str,
        kind: ToolKind,
        input: Value,
    ) -> ToolContext {
        ToolContext {
            call_id,
            tool: tool.to_owned(),
            kind,
            input,
            ..self.base.clone()
        }
    }

    /// Whether terminal `id` is one of the editor's (the command runs in its terminal).
    pub fn in_editor(&self, id: &str) -> bool {
        self.editor_terminals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(id)
    }

    fn terminal<T>(&self, id: &str, f: impl FnOnce(&mut Terminal) -> T) -> Result<T, String> {
        let mut terminals = self.terminals.lock().unwrap_or_else(|p| p.into_inner());
        terminals
            .get_mut(id)
            .map(f)
            .ok_or_else(|| format!("There is no terminal `{id}`."))
    }

    /// Reads what the job printed since last time into the terminal's output.
    async fn catch_up(&self, id: &str) -> Result<TerminalOutput, String> {
        let job = self.terminal(id, |t| t.job.clone())?;
        let (new, _) = job.read_new().await.map_err(|e| e.to_string())?;
        self.terminal(id, |t| {
            t.output.push_str(&new);
            if t.output.len() > t.limit {
                let mut cut = t.output.len() - t.limit;
                while !t.output.is_char_boundary(cut) {
                    cut += 1;
                }
                t.output.drain(..cut);
                t.truncated = true;
            }
            TerminalOutput {
                output: t.output.clone(),
                truncated: t.truncated,
                exit: t.job.end().map(exit),
            }
        })
    }
}

fn exit(end: JobEnd) -> TerminalExit {
    match end {
        JobEnd::Exited(code) => TerminalExit {
            code: Some(code),
            signal: None,
        },
        JobEnd::Killed => TerminalExit {
            code: None,
            signal: Some("SIGKILL".into()),
        },
    }
}

fn words(error: ToolError) -> String {
    error.to_string()
}

/// `command args…` as one shell line, each argument quoted where it needs it.
fn command_line(command: &str, args: &[String]) -> String {
    let quote = |word: &str| {
        if !word.is_empty()
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c))
        {
            word.to_owned()
        } else {
            format!("'{}'", word.replace('\'', r"'\''"))
        }
    };
    let mut line = if args.is_empty() {
        command.to_owned()
    } else {
        quote(command)
    };
    for arg in args {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    line
}

impl RemoteHost for ExternalHost {
    fn read_text_file(
        &self,
        path: PathBuf,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Answer<'_, String> {
        Box::pin(async move {
            let path = path.to_string_lossy().into_owned();
            let ctx = self.context(
                keys::READ,
                ToolKind::Read,
                serde_json::json!({"filePath": path}),
            );
            crate::tool::files::for_agent::read(&ctx, &path, line, limit)
                .await
                .map_err(words)
        })
    }

    fn write_text_file(&self, path: PathBuf, content: String) -> Answer<'_, ()> {
        Box::pin(async move {
            let path = path.to_string_lossy().into_owned();
            let ctx = self.context(
                "write",
                ToolKind::Edit,
                serde_json::json!({"filePath": path}),
            );
            crate::tool::files::for_agent::write(&ctx, &path, content)
                .await
                .map(|_| ())
                .map_err(words)
        })
    }

    fn request_permission(&self, ask: PermissionAsk) -> BoxFuture<'_, Choice> {
        Box::pin(async move {
            let call = &ask.call;
            let contexts =
                |tool: &str| self.context_of(call.id.clone(), tool, call.kind, call.input.clone());
            let allowed = decide::check(&contexts, call).await.is_ok();
            let wanted: &[OptionKind] = if allowed {
                &[OptionKind::AllowOnce, OptionKind::AllowAlways]
            } else {
                &[OptionKind::RejectOnce, OptionKind::RejectAlways]
            };
            wanted
                .iter()
                .find_map(|kind| ask.options.iter().find(|(_, k)| k == kind))
                .map_or(Choice::Cancelled, |(id, _)| Choice::Selected(id.clone()))
        })
    }

    fn ask(&self, questions: Vec<Question>) -> BoxFuture<'_, QuestionReply> {
        Box::pin(async move {
            // The agent's questions meet the caller's `question` rule, as its own would.
            let headers: Vec<String> = questions.iter().map(|q| q.header.clone()).collect();
            let denied = headers
                .iter()
                .chain(std::iter::once(&"*".to_owned()))
                .any(|h| {
                    self.base.permissions.verdict(keys::QUESTION, h)
                        == crate::permission::Action::Deny
                });
            if denied {
                return QuestionReply::Unavailable("the rules deny questions".into());
            }
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            let request = QuestionRequest {
                session_id: self.base.session_id.clone(),
                call_id: format!("{}-agent-{n}", self.base.message_id),
                questions: questions.clone(),
            };
            self.base
                .client
                .ask_questions(request)
                .await
                .offered(&questions)
        })
    }

    fn create_terminal(&self, request: TerminalRequest) -> Answer<'_, String> {
        Box::pin(async move {
            let line = command_line(&request.command, &request.args);
            let ctx = self.context(
                keys::BASH,
                ToolKind::Execute,
                serde_json::json!({"command": line}),
            );
            let workdir = request
                .cwd
                .map_or_else(|| ".".to_owned(), |p| p.to_string_lossy().into_owned());
            let job = crate::tool::shell::jobs::start::start_for_agent(&ctx, &line, &workdir)
                .await
                .map_err(words)?;
            let id = job.terminal_id().unwrap_or(&job.id).to_owned();
            if job.terminal_id().is_some() {
                self.editor_terminals
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(id.clone());
            }
            let limit = request.output_limit.map_or(usize::MAX, |l| l as usize);
            self.terminals
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(
                    id.clone(),
                    Terminal {
                        job,
                        output: String::new(),
                        limit,
                        truncated: false,
                    },
                );
            Ok(id)
        })
    }

    fn terminal_output(&self, id: String) -> Answer<'_, TerminalOutput> {
        Box::pin(async move { self.catch_up(&id).await })
    }

    fn wait_for_terminal_exit(&self, id: String) -> Answer<'_, TerminalExit> {
        Box::pin(async move {
            let job = self.terminal(&id, |t| t.job.clone())?;
            loop {
                if let Some(end) = job.end() {
                    return Ok(exit(end));
                }
                tokio::select! {
                    _ = job.wait(std::time::Duration::from_secs(3600)) => {}
                    _ = self.base.cancel.cancelled() => {
                        job.kill();
                        return Err("The turn was cancelled; the command was killed.".into());
                    }
                }
            }
        })
    }

    fn kill_terminal(&self, id: String) -> Answer<'_, ()> {
        Box::pin(async move {
            self.terminal(&id, |t| t.job.kill())?;
            Ok(())
        })
    }

    fn release_terminal(&self, id: String) -> Answer<'_, ()> {
        Box::pin(async move {
            let removed = self
                .terminals
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            if let Some(terminal) = removed {
                terminal.job.kill();
            }
            Ok(())
        })
    }
}

impl Drop for ExternalHost {
    /// Commands the agent left running end with its turn.
    fn drop(&mut self) {
        for terminal in self
            .terminals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
        {
            terminal.job.kill();
        }
    }
}
