//! Running the tool calls a model message asked for: in order, except the tools that say they
//! may run concurrently (subagents), which run together at the end. A call stays pending while
//! its checks run (the permission rules, the person's answer, the doom-loop question) and is
//! shown running only once the tool says it has started.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::setup::TurnSetup;
use super::stream::Draft;
use crate::bus::Event;
use crate::id::{PartId, now_ms};
use crate::message::{FinishReason, Message, Part, PartBody, ToolPart, ToolState};
use crate::permission::keys;
use crate::session::core::writer::PartWriter;
use crate::session::error::SessionError;
use crate::session::hooks::tools::{Hooked, run_hooked};
use crate::tool::{Need, PermissionCheck, Tool, ToolContext, ToolError, ToolOutput, ToolProgress};

/// After a cancel, how long a call still in its checks may take to settle: the editor answers
/// its open permission question with `cancelled`, and waiting for that answer spares it a
/// `$/cancel_request` for a question it has already closed.
const SETTLE_AFTER_CANCEL: Duration = Duration::from_secs(2);

/// How running a message's calls ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::session) enum CallsOutcome {
    /// Every call ran (successfully or not); the model gets the results.
    AllRan,
    /// The turn was cancelled; calls that had not finished are marked failed.
    Cancelled,
    /// Every call ran, but the person rejected one or a rule denied one.
    Blocked,
    /// A call asked the person something they answer in their next prompt: the turn ends.
    AwaitsReply,
}

/// How one call's recorded end bears on the turn, mildest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Recorded {
    Ran,
    Blocked,
    AwaitsReply,
}

/// Runs the draft's pending calls, with the tools `offered` on this step.
pub(in crate::session) async fn run(
    draft: &mut Draft,
    offered: &[&str],
    setup: &TurnSetup,
    history: &[Message],
) -> Result<CallsOutcome, SessionError> {
    let cancel = &setup.cancel;
    let mut worst = Recorded::Ran;
    let (together, in_order): (Vec<_>, Vec<_>) =
        draft.pending_calls().into_iter().partition(|(_, call)| {
            setup
                .tools
                .get(&call.tool)
                .is_some_and(|tool| tool.concurrent())
        });
    for (id, call) in in_order {
        if cancel.is_cancelled() {
            break;
        }
        let prepared = prepare(draft, id, call, offered, setup, history);
        let ran = execute(&prepared, setup).await;
        worst = worst.max(record(draft, prepared, ran)?);
    }
    if !cancel.is_cancelled() && !together.is_empty() {
        let prepared: Vec<Prepared> = together
            .into_iter()
            .map(|(id, call)| prepare(draft, id, call, offered, setup, history))
            .collect();
        let ran = futures::future::join_all(prepared.iter().map(|p| execute(p, setup))).await;
        for (prepared, ran) in prepared.into_iter().zip(ran) {
            worst = worst.max(record(draft, prepared, ran)?);
        }
    }
    if cancel.is_cancelled() {
        draft.fail_pending(&ToolError::Cancelled)?;
        return Ok(CallsOutcome::Cancelled);
    }
    Ok(match worst {
        Recorded::Ran => CallsOutcome::AllRan,
        Recorded::Blocked => CallsOutcome::Blocked,
        Recorded::AwaitsReply => CallsOutcome::AwaitsReply,
    })
}

/// A call ready to run, or why it cannot.
struct Prepared {
    id: PartId,
    call: ToolPart,
    started_at: i64,
    job: Result<Job, ToolError>,
}

/// What `execute` runs.
struct Job {
    tool: Arc<dyn Tool>,
    input: Value,
    ctx: ToolContext,
    /// The third identical call in a row: ask about a loop first.
    repeats: bool,
    /// Set once the tool has started (its checks are done).
    started: Arc<AtomicBool>,
}

/// Looks the call's tool up among those offered and gives it its context.
fn prepare(
    draft: &mut Draft,
    id: PartId,
    call: ToolPart,
    offered: &[&str],
    setup: &TurnSetup,
    history: &[Message],
) -> Prepared {
    let started_at = now_ms();
    let input = draft.take_input(&call).map_err(ToolError::Failed);
    let tool = offered
        .contains(&call.tool.as_str())
        .then(|| setup.tools.get(&call.tool).cloned())
        .flatten()
        .ok_or_else(|| {
            ToolError::failed(format!(
                "There is no tool named `{}` here. Available tools: {}.",
                call.tool,
                if offered.is_empty() {
                    "none".to_owned()
                } else {
                    offered.join(", ")
                }
            ))
        });
    let job = input.and_then(|input| {
        let tool = tool?;
        let started = Arc::new(AtomicBool::new(false));
        let pending = draft.part(PartBody::tool(call.clone()), Some(id.clone()));
        let progress = progress(draft.writer().clone(), pending, started.clone());
        Ok(Job {
            repeats: repeats_itself(history, &draft.parts, &call.tool, &input),
            ctx: context(draft, &call, &input, setup, progress),
            tool,
            input,
            started,
        })
    });
    Prepared {
        id,
        call,
        started_at,
        job,
    }
}

/// What a call runs with.
fn context(
    draft: &Draft,
    call: &ToolPart,
    input: &Value,
    setup: &TurnSetup,
    progress: Arc<dyn Fn(ToolProgress) + Send + Sync>,
) -> ToolContext {
    ToolContext {
        session_id: draft.info.session_id.clone(),
        message_id: draft.info.id.clone(),
        call_id: call.call_id.clone(),
        tool: call.tool.clone(),
        kind: call.kind.unwrap_or_default(),
        input: input.clone(),
        cwd: setup.cwd.clone(),
        extra_roots: setup.extra_roots.clone(),
        cancel: setup.cancel.child_token(),
        client: setup.port.clone(),
        permissions: setup.gate.clone(),
        subagents: setup.delegation.clone(),
        todos: setup.todos.clone(),
        sandbox: setup.sandbox.clone(),
        files: setup.files.clone(),
        jobs: setup.jobs.clone(),
        code: setup.code.clone(),
        progress,
    }
}

/// The call's progress, published as it comes. The first sign of life (the tool saying it has
/// started, or its first output) stores and shows the call as running; `pending` is the call's
/// part as it waits, taken then.
fn progress(
    writer: PartWriter,
    pending: Part,
    started: Arc<AtomicBool>,
) -> Arc<dyn Fn(ToolProgress) + Send + Sync> {
    let session_id = pending.session_id.clone();
    let call_id = match &pending.body {
        PartBody::Tool(call) => call.call_id.clone(),
        _ => unreachable!("a call's part is a tool part"),
    };
    let pending = std::sync::Mutex::new(Some(pending));
    Arc::new(move |progress| {
        if !started.swap(true, Ordering::AcqRel)
            && let Some(mut part) = pending.lock().unwrap_or_else(|p| p.into_inner()).take()
        {
            if let PartBody::Tool(call) = &mut part.body {
                let waiting = ToolState::Pending { input: Value::Null };
                let input = std::mem::replace(&mut call.state, waiting).into_input();
                call.state = ToolState::Running {
                    input,
                    title: call.title.clone(),
                    started_at: now_ms(),
                };
            }
            if let Err(error) = writer.save(part, false) {
                tracing::warn!(%error, "a running tool call could not be stored");
            }
        }
        let event = match progress {
            ToolProgress::Started => return,
            ToolProgress::Output(delta) => Event::ToolOutput {
                session_id: session_id.clone(),
                call_id: call_id.clone(),
                delta,
            },
            ToolProgress::Terminal(terminal_id) => Event::ToolTerminal {
                session_id: session_id.clone(),
                call_id: call_id.clone(),
                terminal_id,
            },
        };
        writer.publish(event);
    })
}

/// Whether this call is the third in a row of the same tool with the same input: the two
/// finished calls before it, found walking back from the latest.
fn repeats_itself(history: &[Message], current: &[Part], tool: &str, input: &Value) -> bool {
    let mut last_two = history
        .iter()
        .flat_map(|m| m.parts.iter())
        .chain(current)
        .rev()
        .filter_map(|p| match &p.body {
            PartBody::Tool(call) if call.state.is_finished() => Some(&**call),
            _ => None,
        })
        .take(2);
    let same = |call: Option<&ToolPart>| {
        call.is_some_and(|c| c.tool == tool && same_modulo_whitespace(c.state.input(), input))
    };
    same(last_two.next()) && same(last_two.next())
}

/// Every tool's output reaches the model as bash's does: at most 2,000 lines and 50 KiB, head
/// and tail kept, the whole saved to a file the model can read (named in the metadata).
fn truncate_output(out: &mut ToolOutput, call_id: &str, dir: Option<&std::path::Path>) {
    // A tool that cut its own output (bash) has saved the whole already.
    if out.metadata.get("outputFile").is_some_and(|f| !f.is_null()) {
        return;
    }
    let (shown, saved) = crate::tool::truncate::truncate(&out.output, dir, call_id);
    out.output = shown;
    if let Some(path) = saved {
        if let Value::Object(metadata) = &mut out.metadata {
            metadata.insert("outputFile".into(), path.display().to_string().into());
        } else {
            out.metadata = serde_json::json!({"outputFile": path.display().to_string()});
        }
    }
}

/// Whether two inputs are the same call, ignoring how their strings are spaced (a model
/// looping on `ls  -la` and `ls -la` is looping all the same).
fn same_modulo_whitespace(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(a), Value::String(b)) => a.split_whitespace().eq(b.split_whitespace()),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_modulo_whitespace(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| same_modulo_whitespace(v, w)))
        }
        (a, b) => a == b,
    }
}

/// Runs one prepared call (`None` when it could not be prepared: its error says why). A
/// cancel ends a running call at once; a call still in its checks gets a moment to settle
/// (its permission question is answered `cancelled` by the editor).
async fn execute(prepared: &Prepared, setup: &TurnSetup) -> Option<Hooked> {
    let job = prepared.job.as_ref().ok()?;
    Some(run_job(job, setup).await)
}

/// Runs a call with its hooks; a cancel ends it (see `execute`).
async fn run_job(job: &Job, setup: &TurnSetup) -> Hooked {
    let cancel = &setup.cancel;
    let cancelled = || Hooked {
        result: Err(ToolError::Cancelled),
        input: None,
    };
    let work = async {
        if job.repeats {
            let tool = &job.ctx.tool;
            job.ctx
                .ask(PermissionCheck {
                    needs: vec![
                        Need::new(keys::DOOM_LOOP, vec![tool.clone()]).always(vec![tool.clone()]),
                    ],
                    title: format!("{tool} was called three times in a row with the same input"),
                    ..Default::default()
                })
                .await
                .map_err(|error| Hooked {
                    result: Err(error),
                    input: None,
                })?;
        }
        Ok(run_hooked(
            &setup.hooks,
            &setup.gate,
            &job.tool,
            job.input.clone(),
            &job.ctx,
        )
        .await)
    };
    let work = async { work.await.unwrap_or_else(|failed| failed) };
    tokio::pin!(work);
    tokio::select! {
        biased;
        result = &mut work => result,
        _ = cancel.cancelled() => {
            if job.started.load(Ordering::Acquire) {
                return cancelled();
            }
            // Whatever it comes to in that moment is what happened; the gate lets nothing
            // new be allowed after the cancel.
            tokio::time::timeout(SETTLE_AFTER_CANCEL, &mut work)
                .await
                .unwrap_or_else(|_| cancelled())
        }
    }
}

/// Stores a call's outcome: what it returned (`ran`), or why it could not be prepared; and
/// says whether the person rejected it or a rule denied it, or it waits for their reply.
fn record(
    draft: &mut Draft,
    prepared: Prepared,
    ran: Option<Hooked>,
) -> Result<Recorded, SessionError> {
    let Prepared {
        id,
        mut call,
        started_at,
        job,
    } = prepared;
    let ended_at = now_ms();
    let save_to = job
        .as_ref()
        .ok()
        .and_then(|j| crate::tool::saved::dir(&j.ctx.cwd, &j.ctx.session_id.0));
    let result = match (job, ran) {
        (Ok(job), Some(Hooked { result, input })) => {
            result.map(|out| (input.unwrap_or(job.input), out))
        }
        (Err(error), _) => Err(error),
        (Ok(_), None) => Err(ToolError::Cancelled),
    };
    let mut recorded = match &result {
        Err(ToolError::Rejected { .. } | ToolError::Denied { .. }) => Recorded::Blocked,
        _ => Recorded::Ran,
    };
    let state = match result {
        Ok((input, mut out)) => {
            truncate_output(&mut out, &call.call_id, save_to.as_deref());
            if !out.locations.is_empty() {
                call.locations = out.locations;
            }
            if let Some(note) = draft.take_repair(&call.call_id) {
                out.output = format!("{note}\n\n{}", out.output);
            }
            if let Some(asked) = out.ends_turn.take() {
                recorded = Recorded::AwaitsReply;
                draft.say(asked);
            }
            ToolState::Completed {
                input,
                output: out.output,
                title: out.title,
                metadata: out.metadata,
                diffs: out.diffs,
                attachments: out.attachments,
                terminal_id: out.terminal_id,
                started_at,
                ended_at,
            }
        }
        Err(error) => ToolState::Error {
            input: call.state.input().clone(),
            error: error.to_string(),
            shown: error.for_person(),
            started_at,
            ended_at,
        },
    };
    draft.save(PartBody::tool(ToolPart { state, ..call }), Some(id))?;
    Ok(recorded)
}

/// Runs the draft's pending calls between two snapshots of the project (when any call may
/// change files), and keeps what they changed as the step's patch. A rejected or denied call
/// ends the turn after this step (OpenCode's rule) unless `go_on_after_deny`.
pub(in crate::session) async fn run_between_snapshots(
    draft: &mut Draft,
    offered: &[&str],
    setup: &TurnSetup,
    history: &[Message],
    go_on_after_deny: bool,
) -> Result<FinishReason, SessionError> {
    let calls = draft.pending_calls();
    let before = if setup.snapshots.wanted(
        &setup.tools,
        calls.iter().map(|(_, call)| call.tool.as_str()),
    ) {
        setup.snapshots.before_calls().await
    } else {
        None
    };
    if let Some(tree) = &before {
        draft.mark_snapshot(tree)?;
    }
    let outcome = run(draft, offered, setup, history).await;
    let moved = setup
        .root_watch
        .set_aside_new(&setup.gate.approved_protected());
    crate::session::core::root_watch::tell(&setup.writer, &setup.session_id, moved);
    if let Some(tree) = &before
        && let Some(patch) = setup.snapshots.after_calls(tree).await
    {
        draft.add_patch(patch)?;
    }
    Ok(match outcome? {
        CallsOutcome::AllRan => FinishReason::ToolCalls,
        CallsOutcome::Blocked if go_on_after_deny => FinishReason::ToolCalls,
        CallsOutcome::Blocked | CallsOutcome::AwaitsReply => FinishReason::Stop,
        CallsOutcome::Cancelled => FinishReason::Cancelled,
    })
}
