//! Starting a background job: in the editor's terminal when it offers them (its output shown
//! live there), else in a process group of Tandem's own, read into the job as it comes.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;

use super::{EditorTerminal, Job, JobEnd, Runner};
use crate::id::SessionId;
use crate::process::groups::GroupGuard;
use crate::process::shell;
use crate::tool::{ClientPort, ToolContext, ToolError, ToolProgress};

/// How long the call waits for a job's first lines before it answers.
const FIRST_LINES_WAIT: Duration = Duration::from_millis(1000);
/// And after the first output, for the rest of its first burst.
const SETTLE: Duration = Duration::from_millis(150);

/// Starts `command` (already checked and admitted as job `id`) and adds it to the session's
/// jobs.
pub(in crate::tool) async fn start(
    ctx: &ToolContext,
    id: String,
    command: &str,
    workdir: &Path,
    sandbox: Option<&crate::sandbox::Prepared>,
) -> Result<Arc<Job>, ToolError> {
    let program = match sandbox {
        Some(_) => crate::sandbox::exec::terminal_command(&ctx.sandbox, shell::shell(), command),
        None => Some((
            shell::shell().to_owned(),
            vec!["-c".into(), command.to_owned()],
        )),
    };
    let job = match program {
        Some(program) if ctx.client.can_run_terminals() => {
            in_terminal(ctx, id, command, program, workdir).await?
        }
        _ => locally(id, command, workdir, sandbox)?,
    };
    ctx.jobs.add(job.clone());
    Ok(job)
}

/// Starts `command` and returns once its first lines are in (or a second has passed).
pub(in crate::tool) async fn start_and_settle(
    ctx: &ToolContext,
    id: String,
    command: &str,
    workdir: &Path,
    sandbox: Option<&crate::sandbox::Prepared>,
) -> Result<Arc<Job>, ToolError> {
    let job = start(ctx, id, command, workdir, sandbox).await?;
    job.first_output(FIRST_LINES_WAIT).await;
    tokio::time::sleep(SETTLE).await;
    Ok(job)
}

/// Starts `command` for another agent (its ACP `terminal/create`), checked as `bash` checks
/// a command line, in `workdir` (asked about when outside the project), in the session's
/// sandbox, as one of the session's jobs; returns at once.
pub async fn start_for_agent(
    ctx: &ToolContext,
    command: &str,
    workdir: &str,
) -> Result<Arc<Job>, ToolError> {
    let workdir = ctx.path_in_reach(workdir).await?;
    crate::tool::shell::checks::check_line(ctx, command, &workdir).await?;
    let sandbox = crate::tool::shell::sandbox::choose(ctx, command, false).await?;
    let id = ctx.jobs.admit()?;
    ctx.started();
    let prepared = sandbox.prepare(&ctx.sandbox)?;
    start(ctx, id, command, &workdir, prepared.as_ref()).await
}

/// In a process group of Tandem's own (killed with it, watched by the reaper).
fn locally(
    id: String,
    command: &str,
    workdir: &Path,
    sandbox: Option<&crate::sandbox::Prepared>,
) -> Result<Arc<Job>, ToolError> {
    let mut child = shell::start(command, workdir, sandbox).map_err(super::super::cannot_start)?;
    let group = GroupGuard::new(child.id().map(|pid| pid as i32));
    let mut pipes = shell::read_pipes(&mut child);
    let job = Arc::new(Job::new(
        id,
        command.to_owned(),
        Runner::Local(Mutex::new(group)),
    ));
    let reader = job.clone();
    tokio::spawn(async move {
        let mut decoder = crate::utf8::Decoder::default();
        let status = loop {
            tokio::select! {
                Some(chunk) = pipes.recv() => reader.push(&decoder.push(&chunk)),
                status = child.wait() => break status.ok(),
            }
        };
        // What the pipes still hold; a grandchild keeping them open is not waited for.
        let drain = tokio::time::sleep(Duration::from_millis(200));
        tokio::pin!(drain);
        loop {
            tokio::select! {
                chunk = pipes.recv() => match chunk {
                    Some(chunk) => reader.push(&decoder.push(&chunk)),
                    None => break,
                },
                _ = &mut drain => break,
            }
        }
        reader.push(&decoder.finish());
        let end = status
            .and_then(|s| s.code())
            .map_or(JobEnd::Killed, JobEnd::Exited);
        reader.finish(end);
    });
    Ok(job)
}

/// In the editor's terminal, attached to the call; its end is watched from here.
async fn in_terminal(
    ctx: &ToolContext,
    id: String,
    command: &str,
    (program, args): (String, Vec<String>),
    workdir: &Path,
) -> Result<Arc<Job>, ToolError> {
    let terminal = ctx
        .client
        .create_terminal(&ctx.session_id, &program, args, workdir, 1024 * 1024)
        .await?;
    (ctx.progress)(ToolProgress::Terminal(terminal.clone()));
    let job = Arc::new(Job::new(
        id,
        command.to_owned(),
        Runner::Terminal(Arc::new(InTerminal {
            client: ctx.client.clone(),
            session_id: ctx.session_id.clone(),
            id: terminal.clone(),
        })),
    ));
    let watcher = job.clone();
    let (client, session_id) = (ctx.client.clone(), ctx.session_id.clone());
    tokio::spawn(async move {
        let exit = client.wait_for_terminal_exit(&session_id, &terminal).await;
        let end = match exit {
            Ok(exit) => exit.code.map_or(JobEnd::Killed, JobEnd::Exited),
            Err(_) => JobEnd::Killed,
        };
        watcher.finish(end);
    });
    Ok(job)
}

/// A job's terminal in the editor, reached through the client port.
struct InTerminal {
    client: Arc<dyn ClientPort>,
    session_id: SessionId,
    id: String,
}

impl EditorTerminal for InTerminal {
    fn id(&self) -> &str {
        &self.id
    }

    fn kill(&self) -> BoxFuture<'static, ()> {
        let (client, session_id, id) = (
            self.client.clone(),
            self.session_id.clone(),
            self.id.clone(),
        );
        Box::pin(async move {
            let _ = client.kill_terminal(&session_id, &id).await;
            let _ = client.release_terminal(&session_id, &id).await;
        })
    }

    fn release(&self) -> BoxFuture<'static, ()> {
        let (client, session_id, id) = (
            self.client.clone(),
            self.session_id.clone(),
            self.id.clone(),
        );
        Box::pin(async move {
            let _ = client.release_terminal(&session_id, &id).await;
        })
    }

    fn output(&self) -> BoxFuture<'_, Result<(String, Option<JobEnd>), ToolError>> {
        Box::pin(async move {
            let all = self
                .client
                .terminal_output(&self.session_id, &self.id)
                .await?;
            let end = all
                .exit
                .map(|exit| exit.code.map_or(JobEnd::Killed, JobEnd::Exited));
            Ok((all.output, end))
        })
    }
}
