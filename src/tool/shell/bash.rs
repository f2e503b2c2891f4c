//! `bash`: runs a command line in its own process group after checking each of its simple
//! commands; streams output as it comes, and kills the whole group on timeout, cancel or exit.

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::message::Location;
use crate::process::groups::GroupGuard;
use crate::tool::truncate::truncate;
use crate::tool::{
    Tool, ToolContext, ToolError, ToolKind, ToolOutput, ToolProgress, input_schema, input_str,
    parse_input,
};

const DEFAULT_TIMEOUT_MS: u64 = 120_000;
const MAX_TIMEOUT_MS: u64 = 600_000;

pub struct BashTool;

/// The `bash` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashInput {
    /// The command line to run.
    pub command: String,
    /// Milliseconds before the command is killed (default 120000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub timeout: Option<u64>,
    /// What the command does, in 5-10 words.
    #[serde(default)]
    pub description: Option<String>,
    /// The directory to run in (default: the project).
    #[serde(default)]
    pub workdir: Option<String>,
    /// Run outside the sandbox; only after the sandbox blocked the command, and the person is
    /// asked first.
    #[serde(default)]
    pub outside_sandbox: Option<bool>,
    /// Start it in the background and answer at once with a job id and its first lines (for
    /// servers, watchers, long builds); read it with bash_output, end it with bash_kill.
    /// `timeout` does not apply to it.
    #[serde(default)]
    pub run_in_background: Option<bool>,
}

impl Tool for BashTool {
    fn name(&self) -> &'static str {
        "bash"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &[
            "shell",
            "runshellcommand",
            "runterminalcmd",
            "execcommand",
            "executecommand",
            "runcommand",
            "terminal",
        ]
    }

    fn claude_name(&self) -> Option<String> {
        Some("Bash".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn description(&self) -> &'static str {
        "Runs a bash command line in the project and returns its output (stdout and stderr) and \
         exit code. `timeout` is in milliseconds (default 120000, at most 600000); `workdir` sets \
         the directory instead of `cd`; `description` says in 5-10 words what it does. Long output \
         is cut in the middle and saved to a file you can read. Set `run_in_background` for \
         servers, watchers and long builds: the call answers at once with a job id (read it with \
         bash_output, end it with bash_kill), and you are told when the job ends. Prefer the \
         read, glob, grep and edit tools over cat, find, grep and sed."
    }

    fn parameters(&self) -> Value {
        input_schema::<BashInput>()
    }

    fn describe(&self, input: &Value, cwd: &Path) -> (String, Vec<Location>) {
        let title = input_str(input, "command").unwrap_or_default().to_owned();
        let dir = crate::paths::resolve_in(cwd, input_str(input, "workdir").unwrap_or("."));
        (title, vec![Location::file(dir)])
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: BashInput = parse_input(self.name(), input)?;
            let _ = &input.description;
            let workdir = ctx
                .path_in_reach(input.workdir.as_deref().unwrap_or("."))
                .await?;
            super::checks::check_line(ctx, &input.command, &workdir).await?;
            if !workdir.is_dir() {
                return Err(ToolError::failed(format!(
                    "The workdir {} does not exist or is not a directory. Give an existing \
                     directory, or leave workdir out to run in the project root.",
                    workdir.display()
                )));
            }
            let sandbox =
                super::sandbox::choose(ctx, &input.command, input.outside_sandbox == Some(true))
                    .await?;
            if input.run_in_background == Some(true) {
                let id = ctx.jobs.admit()?;
                ctx.started();
                let prepared = sandbox.prepare(&ctx.sandbox)?;
                return in_background(ctx, id, input.command, &workdir, prepared.as_ref()).await;
            }
            ctx.started();
            let timeout = Duration::from_millis(
                input
                    .timeout
                    .unwrap_or(DEFAULT_TIMEOUT_MS)
                    .min(MAX_TIMEOUT_MS),
            );
            let prepared = sandbox.prepare(&ctx.sandbox)?;
            let run = launch(ctx, &input.command, &workdir, timeout, prepared.as_ref()).await?;
            let mut text = run.output;
            let blocked = prepared.as_ref().and_then(|_| {
                crate::sandbox::find_blocked(&text, &input.command, &workdir, &ctx.sandbox)
            });
            if run.timed_out {
                text.push_str(&format!("\n\n(The command was killed after {} ms: it exceeded its timeout. Run long jobs in the background or raise `timeout`.)", timeout.as_millis()));
            } else if let Some(code) = run.exit_code.filter(|c| *c != 0) {
                text.push_str(&format!("\n\n(exit code {code})"));
            }
            if text.is_empty() {
                text = "(no output)".into();
            }
            if let Some(blocked) = &blocked {
                text.push_str("\n\n");
                text.push_str(&blocked.explain(&ctx.sandbox));
            }
            let coverage = prepared
                .as_ref()
                .map(|_| crate::sandbox::Coverage::of(&ctx.sandbox, crate::sandbox::support()));
            let save_to = crate::tool::saved::dir(&ctx.cwd, &ctx.session_id.0);
            let (output, saved) = truncate(&text, save_to.as_deref(), &ctx.call_id);
            Ok(ToolOutput {
                title: input.command,
                output,
                metadata: json!({"exitCode": run.exit_code, "timedOut": run.timed_out,
                                  "outputFile": saved.map(|p| p.display().to_string()),
                                  "sandbox": sandbox.label(&ctx.sandbox),
                                  "sandboxAbi": coverage.as_ref().map(|c| c.abi),
                                  "sandboxGaps": coverage.map(|c| c.gaps),
                                  "sandboxBlocked": blocked.is_some()}),
                locations: vec![Location::file(workdir)],
                terminal_id: run.terminal_id,
                ..Default::default()
            })
        })
    }
}

/// Starts the command as background job `id` and answers with its first lines.
async fn in_background(
    ctx: &ToolContext,
    id: String,
    command: String,
    workdir: &Path,
    prepared: Option<&crate::sandbox::Prepared>,
) -> Result<ToolOutput, ToolError> {
    let job = super::jobs::start::start_and_settle(ctx, id, &command, workdir, prepared).await?;
    let (first, dropped) = job.read_new().await?;
    let output = format!(
        "Started background job {}: read what it prints with bash_output, end it with bash_kill; \
         you will be told when it ends.\n\n{}",
        job.id,
        super::jobs::tools::report(&job, &first, dropped)
    );
    Ok(ToolOutput {
        title: format!("{command} (background job {})", job.id),
        output,
        metadata: super::jobs::tools::metadata(&job),
        locations: vec![Location::file(workdir.to_path_buf())],
        terminal_id: job.terminal_id().map(str::to_owned),
        ..Default::default()
    })
}

struct Finished {
    output: String,
    exit_code: Option<i32>,
    timed_out: bool,
    /// The editor's terminal that showed the command, when it ran there.
    terminal_id: Option<String>,
}

/// The editor's terminal output limit; Tandem truncates further for the model.
const TERMINAL_OUTPUT_LIMIT: u64 = 1024 * 1024;

/// Kills and releases the editor's terminal if the call ends early (cancel drops the future).
struct TerminalGuard {
    ctx: Option<(
        std::sync::Arc<dyn crate::tool::ClientPort>,
        crate::id::SessionId,
        String,
    )>,
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        if let Some((client, session_id, id)) = self.ctx.take() {
            tokio::spawn(async move {
                let _ = client.kill_terminal(&session_id, &id).await;
                let _ = client.release_terminal(&session_id, &id).await;
            });
        }
    }
}

/// Runs `command` in the editor's terminal when it has one, else here. Sandboxed, the terminal
/// runs `tandem sandbox-exec`; when that cannot be set up, the command runs here under the same
/// sandbox, never unsandboxed.
async fn launch(
    ctx: &ToolContext,
    command: &str,
    workdir: &Path,
    timeout: Duration,
    prepared: Option<&crate::sandbox::Prepared>,
) -> Result<Finished, ToolError> {
    let in_terminal = ctx.client.can_run_terminals();
    let program = match prepared {
        Some(_) => crate::sandbox::exec::terminal_command(
            &ctx.sandbox,
            crate::process::shell::shell(),
            command,
        ),
        None => Some((
            crate::process::shell::shell().to_owned(),
            vec!["-c".into(), command.to_owned()],
        )),
    };
    match program {
        Some(program) if in_terminal => run_in_terminal(ctx, program, workdir, timeout).await,
        _ => {
            if in_terminal {
                tracing::warn!("cannot prepare the sandboxed terminal; running here");
            }
            run_command(ctx, command, workdir, timeout, prepared).await
        }
    }
}

/// Runs the command in the editor's terminal, which shows its output live. A terminal's
/// output has the line endings of a PTY (`\r\n`); the model gets plain `\n`.
async fn run_in_terminal(
    ctx: &ToolContext,
    (program, args): (String, Vec<String>),
    workdir: &Path,
    timeout: Duration,
) -> Result<Finished, ToolError> {
    let client = &ctx.client;
    let id = client
        .create_terminal(
            &ctx.session_id,
            &program,
            args,
            workdir,
            TERMINAL_OUTPUT_LIMIT,
        )
        .await?;
    let mut guard = TerminalGuard {
        ctx: Some((client.clone(), ctx.session_id.clone(), id.clone())),
    };
    (ctx.progress)(ToolProgress::Terminal(id.clone()));
    let exit = tokio::select! {
        exit = client.wait_for_terminal_exit(&ctx.session_id, &id) => Some(exit?),
        _ = tokio::time::sleep(timeout) => {
            let _ = client.kill_terminal(&ctx.session_id, &id).await;
            None
        }
    };
    let output = client.terminal_output(&ctx.session_id, &id).await;
    guard.ctx = None;
    let _ = client.release_terminal(&ctx.session_id, &id).await;
    let output = output?;
    Ok(Finished {
        output: output.output.replace("\r\n", "\n"),
        exit_code: exit.as_ref().and_then(|e| e.code),
        timed_out: exit.is_none(),
        terminal_id: Some(id),
    })
}

async fn run_command(
    ctx: &ToolContext,
    command: &str,
    workdir: &Path,
    timeout: Duration,
    sandbox: Option<&crate::sandbox::Prepared>,
) -> Result<Finished, ToolError> {
    let mut child =
        crate::process::shell::start(command, workdir, sandbox).map_err(super::cannot_start)?;
    let mut guard = GroupGuard::new(child.id().map(|pid| pid as i32));
    let mut rx = crate::process::shell::read_pipes(&mut child);
    let mut output = String::new();
    let mut decoder = crate::utf8::Decoder::default();
    let mut emit = |bytes: &[u8], output: &mut String| {
        let text = decoder.push(bytes);
        if !text.is_empty() {
            ctx.output(text.clone());
            output.push_str(&text);
        }
    };
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut timed_out = false;
    let status = loop {
        tokio::select! {
            Some(chunk) = rx.recv() => emit(&chunk, &mut output),
            status = child.wait() => break status.ok(),
            _ = &mut deadline => {
                timed_out = true;
                guard.kill();
                break child.wait().await.ok();
            }
            _ = ctx.cancel.cancelled() => {
                guard.kill();
                let _ = child.wait().await;
                return Err(ToolError::failed("The command was cancelled and killed."));
            }
        }
    };
    // Collect what is still in the pipes; a background job holding them open is not waited for.
    let drain = tokio::time::sleep(Duration::from_millis(200));
    tokio::pin!(drain);
    loop {
        tokio::select! {
            chunk = rx.recv() => match chunk {
                Some(chunk) => emit(&chunk, &mut output),
                None => break,
            },
            _ = &mut drain => break,
        }
    }
    let rest = decoder.finish();
    if !rest.is_empty() {
        ctx.output(rest.clone());
        output.push_str(&rest);
    }
    if !timed_out {
        // The shell is done; its group lives on only if it started background jobs on purpose.
        guard.release();
    }
    Ok(Finished {
        output,
        exit_code: status.and_then(|s| s.code()),
        timed_out,
        terminal_id: None,
    })
}
