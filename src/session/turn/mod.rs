//! One prompt turn: store the person's message, settle what the turn runs with (a command may
//! choose the agent and model), then step after step while the model asks for tools, bounded
//! by the agent's `steps`, and say why the turn stopped.

pub(in crate::session) mod abilities;
pub(in crate::session) mod calls;
pub(in crate::session) mod command;
pub(in crate::session) mod compaction;
pub(in crate::session) mod external;
mod fallback;
mod handover;
pub(in crate::session) mod hooks;
pub(in crate::session) mod jobs;
pub(in crate::session) mod joining;
pub(in crate::session) mod limits;
mod mcp;
pub(in crate::session) mod plan_approval;
mod prompt;
pub(in crate::session) mod retry;
pub(in crate::session) mod setup;
pub(in crate::session) mod step;
pub(in crate::session) mod stream;
pub(in crate::session) mod title;

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use self::prompt::{mentioned_subagents, store_user_message};
use self::setup::{TurnChoice, TurnSetup};
use self::step::StepOutcome;
use self::title::TitleJob;
use super::context;
use super::core::state::{Services, SessionState};
use super::error::{SessionError, StopReason};
use crate::agent::{AgentInfo, Agents};
use crate::bus::Event;
use crate::id::{MessageId, PartId, now_ms};
use crate::message::{PartBody, Role};
use crate::permission::keys;
use crate::permission::{Action, Rule};
use crate::session::undo::snapshots::EarlyStage;
use crate::tool::ClientPort;
use compaction::{Compacted, Trigger};
use joining::JoinQueue;

/// How long a prompt waits for a subagent the person just stopped to end, so it can say so.
const STOPPED_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

pub(in crate::session) async fn run(
    state: &mut SessionState,
    services: &Services,
    content: Vec<PartBody>,
    port: Arc<dyn ClientPort>,
    cancel: CancellationToken,
    joining: &JoinQueue,
) -> Result<StopReason, SessionError> {
    let content = match ready(state, services, content, &port, &cancel).await {
        Ready::Prompt(content) => content,
        Ready::Done(done) => return done,
    };
    let mut agent = state.settings.agent();
    let mut model = state.settings.model();
    let commands = state.settings.commands();
    let command = command::parse(&content, &commands, &state.settings.agents);
    if command
        .as_ref()
        .is_some_and(|c| c.name == crate::command::COMPACT)
    {
        let choice = TurnChoice {
            agent,
            model,
            granted: Vec::new(),
        };
        let setup = TurnSetup::new(state, services, choice, port, cancel)?;
        return compact_now(state, &setup).await;
    }
    let content = match &command {
        Some(invocation) => {
            apply_command(&state.settings.agents, invocation, &mut agent, &mut model);
            vec![PartBody::Text {
                text: invocation.text.clone(),
                synthetic: false,
            }]
        }
        None => content,
    };
    if let Some(name) = &model {
        abilities::check(&state.config, name, &content)?;
    }
    // A subagent the person just stopped has its end told with this prompt, not the next.
    state.background.stopped_ended(STOPPED_WAIT).await;
    // An external agent's files are staged for its snapshot from now on, beside the turn's
    // other preparations (not when background work left entries to set aside first).
    let early = (agent.acp.is_some() && command.is_none() && state.carried_watch.is_none())
        .then(|| EarlyStage::begin(state, &services.snapshots))
        .flatten();
    let content = match hooks::prompt_with_hooks(state, services, &cancel, content).await {
        Ok(content) => content,
        Err(stop) => return Ok(stop),
    };
    let mut mentioned = mentioned_subagents(&state.settings.agents, &content);
    let titled = store_user_message(state, services, &agent, content.clone(), &mentioned)?;
    let title_job = (titled && state.info.parent_id.is_none()).then(|| {
        TitleJob::new(
            state.info.clone(),
            &content,
            state.config.clone(),
            model.clone(),
            services.store.clone(),
            services.bus.clone(),
        )
    });
    let subtask = command.filter(|c| c.subtask);
    if let Some(invocation) = &subtask {
        mentioned.push(invocation.agent.clone().unwrap_or_else(|| "general".into()));
    }
    let granted = mentioned
        .iter()
        .map(|name| Rule::new(keys::TASK, name, Action::Allow))
        .collect();
    let choice = TurnChoice {
        agent,
        model,
        granted,
    };
    // What background work created unasked between turns is set aside before this one.
    if let Some(watch) = state.carried_watch.take() {
        let writer = services.writer();
        crate::session::core::root_watch::tell(&writer, &state.info.id, watch.set_aside_new(&[]));
    }
    let mut setup = TurnSetup::new(state, services, choice, port, cancel)?;
    let stop = work(state, &mut setup, services, (subtask, early), joining).await;
    if matches!(stop, Ok(StopReason::Cancelled)) {
        jobs::left_running(state, &setup);
    }
    let stop = match (stop, setup.limits.timed_out()) {
        (Ok(StopReason::Cancelled), Some(words)) => {
            tell(state, &setup, words);
            Ok(StopReason::MaxTurnRequests)
        }
        (stop, _) => stop,
    };
    jobs::children_working(state, &setup);
    let working_on = !state.jobs.running().is_empty() || crate::process::escapees::any();
    state.carried_watch =
        working_on.then(|| crate::session::core::root_watch::RootWatch::take(&state.info.cwd));
    report_changes(state, &setup).await?;
    prune(state, services);
    if let Some(job) = title_job {
        job.spawn();
    }
    stop
}

/// Whether a prompt goes on to a turn, or what it already ended with.
enum Ready {
    Prompt(Vec<PartBody>),
    Done(Result<StopReason, SessionError>),
}

/// What comes before a turn: the MCP servers ready and their prompts expanded, what another
/// process reverted caught up, `/undo` and `/redo` done, a pending revert made permanent.
async fn ready(
    state: &mut SessionState,
    services: &Services,
    content: Vec<PartBody>,
    port: &Arc<dyn ClientPort>,
    cancel: &CancellationToken,
) -> Ready {
    if !state.told_left_off {
        state.told_left_off = true;
        if let Some(note) = crate::trust::left_off_note(&state.config) {
            services.bus.publish(Event::TextDelta {
                session_id: state.info.id.clone(),
                message_id: MessageId::new(),
                part_id: PartId::new(),
                delta: note,
            });
        }
    }
    if !mcp::ready(state, services, port, cancel).await {
        return Ready::Done(Ok(StopReason::Cancelled));
    }
    let content = match mcp::content(state, content).await {
        Ok(content) => content,
        Err(reason) => {
            services.bus.publish(Event::TextDelta {
                session_id: state.info.id.clone(),
                message_id: MessageId::new(),
                part_id: PartId::new(),
                delta: reason,
            });
            return Ready::Done(Ok(StopReason::EndTurn));
        }
    };
    // Another process (the control server) may have reverted or unreverted this session.
    if let Err(e) = super::undo::revert::catch_up(state, services) {
        return Ready::Done(Err(e));
    }
    if let Some(done) = super::undo::run(state, services, &content).await {
        return Ready::Done(done);
    }
    // A new prompt makes a pending revert permanent.
    match super::undo::revert::cleanup(state, services) {
        Ok(_) => Ready::Prompt(content),
        Err(e) => Ready::Done(Err(e)),
    }
}

/// Keeps on the turn's prompt what the turn changed in the project's files, and says so.
async fn report_changes(state: &mut SessionState, setup: &TurnSetup) -> Result<(), SessionError> {
    let Some(prompt) = state
        .messages
        .iter_mut()
        .rev()
        .find(|m| m.info.role == Role::User && !m.info.joined)
    else {
        return Ok(());
    };
    if let Some(error) = setup.snapshots.failure() {
        setup.writer.publish(Event::SnapshotFailed {
            session_id: state.info.id.clone(),
            message_id: prompt.info.id.clone(),
            error,
        });
    }
    let Some(diff) = setup.snapshots.turn_summary().await else {
        return Ok(());
    };
    prompt.info.diff = Some(diff);
    setup.writer.message(&prompt.info)?;
    setup.writer.publish(Event::TurnChanged {
        session_id: state.info.id.clone(),
        message_id: prompt.info.id.clone(),
        diff,
    });
    Ok(())
}

/// The turn's work: a `subtask` command's delegation first, then the model's steps.
async fn work(
    state: &mut SessionState,
    setup: &mut TurnSetup,
    services: &Services,
    (subtask, mut early): (Option<command::Invocation>, Option<EarlyStage>),
    joining: &JoinQueue,
) -> Result<StopReason, SessionError> {
    if let Some(invocation) = subtask {
        let input = json!({
            "description": invocation.description.clone().unwrap_or_else(|| format!("/{}", invocation.name)),
            "prompt": invocation.text,
            "subagent_type": invocation.agent.unwrap_or_else(|| "general".into()),
            "command": invocation.name,
        });
        if let StepOutcome::Ended(stop) = step::run_subtask(state, setup, input).await? {
            return Ok(stop);
        }
    }
    while let Some(spec) = setup.agent.acp.clone() {
        // The person's money ceilings hold whoever spends: an agent's reported cost counts.
        if let Some(stop) = over_ceiling(state, setup)? {
            return Ok(stop);
        }
        match external::run(state, setup, &spec, early.take()).await {
            // Out of its usage, or unable to work: the person may go on elsewhere, this turn
            // (Tandem's own loop, or another agent).
            Err(SessionError::Agent(why)) => match handover::stopped(&why) {
                Some(stopped)
                    if handover::take(state, setup, services, (&why, stopped)).await? => {}
                _ => return Err(SessionError::Agent(why)),
            },
            other => return other,
        }
    }
    steps(state, setup, services, joining).await
}

/// Step after step while the model asks for tools, compacting when the window is full.
async fn steps(
    state: &mut SessionState,
    setup: &mut TurnSetup,
    services: &Services,
    joining: &JoinQueue,
) -> Result<StopReason, SessionError> {
    let mut step = 0u32;
    // A compaction ran since the last step that fitted: another overflow cannot be helped.
    let mut compacted = false;
    // Answers to the current step that broke off mid-stream and were asked for again.
    let mut broken = 0u32;
    // Times a `Stop` hook sent the agent back to work.
    let mut sent_back = 0u32;
    loop {
        if step > 0 {
            joining.store_waiting(state, setup)?;
            jobs::remind_between_steps(state, setup)?;
            setup.refresh_tools(state, &services.tools).await;
        }
        if !compacted && compaction::needed(state, setup) {
            match compaction::run(state, setup, Trigger::Auto { overflow: false }).await? {
                Compacted::Cancelled => return Ok(StopReason::Cancelled),
                Compacted::Done => compacted = true,
                Compacted::Nothing => {}
            }
        }
        if let Some(stop) = over_ceiling(state, setup)? {
            return Ok(stop);
        }
        step += 1;
        let last_step = setup.agent.steps.is_some_and(|max| step >= max);
        let ran = match step::run(state, setup, last_step, broken).await {
            Err(SessionError::Provider(error))
                if fallback::applies(&error) && fallback::switch(state, setup, &error) =>
            {
                step -= 1;
                continue;
            }
            ran => ran?,
        };
        match ran {
            StepOutcome::ToolsRan if last_step => return Ok(StopReason::MaxTurnRequests),
            StepOutcome::ToolsRan => {
                if let Some(stop) = hooks::halted(setup) {
                    return Ok(stop);
                }
                if plan_approval::approved(state) {
                    plan_approval::switch_to_build(state, setup, services)?;
                }
                compacted = false;
                broken = 0;
            }
            StepOutcome::Broken(delay) => {
                tokio::select! {
                    _ = setup.cancel.cancelled() => return Ok(StopReason::Cancelled),
                    _ = tokio::time::sleep(delay) => {}
                }
                (setup.retry.0)(crate::provider::RetryEvent::Resumed);
                broken += 1;
                step -= 1;
            }
            StepOutcome::Ended(StopReason::EndTurn)
                if hooks::sent_back(state, setup, &mut sent_back).await? => {}
            StepOutcome::Ended(stop) => return Ok(stop),
            StepOutcome::Overflow => {
                if compacted || state.config.config.compaction.auto == Some(false) {
                    return Err(overflow_error(compacted));
                }
                match compaction::run(state, setup, Trigger::Auto { overflow: true }).await? {
                    Compacted::Cancelled => return Ok(StopReason::Cancelled),
                    Compacted::Done => compacted = true,
                    Compacted::Nothing => return Err(overflow_error(true)),
                }
                step -= 1;
            }
        }
    }
}

/// Before a model call: the turn ends (told why) when a money ceiling is reached.
fn over_ceiling(
    state: &SessionState,
    setup: &TurnSetup,
) -> Result<Option<StopReason>, SessionError> {
    let spent = step::session_cost(&state.messages).unwrap_or(0.0);
    let reached = setup.limits.money_reached(spent, setup.writer.store())?;
    Ok(reached.map(|words| {
        tell(state, setup, words);
        StopReason::MaxTokens
    }))
}

/// Shows the person `words` as the agent's, outside the model's answer.
fn tell(state: &SessionState, setup: &TurnSetup, words: String) {
    setup.writer.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: MessageId::new(),
        part_id: PartId::new(),
        delta: format!("\n{words}\n"),
    });
}

/// `/compact`: the person asked to condense the conversation now; the model is not prompted.
async fn compact_now(
    state: &mut SessionState,
    setup: &TurnSetup,
) -> Result<StopReason, SessionError> {
    Ok(
        match compaction::run(state, setup, Trigger::Manual).await? {
            Compacted::Done => StopReason::EndTurn,
            Compacted::Cancelled => StopReason::Cancelled,
            Compacted::Nothing => {
                setup.writer.publish(Event::TextDelta {
                    session_id: state.info.id.clone(),
                    message_id: MessageId::new(),
                    part_id: PartId::new(),
                    delta: "Nothing to compact yet: the conversation still fits in the turns a \
                        compaction keeps verbatim."
                        .into(),
                });
                StopReason::EndTurn
            }
        },
    )
}

/// Why a turn cannot go on when the request still does not fit.
fn overflow_error(compacted: bool) -> SessionError {
    SessionError::ContextOverflow(if compacted {
        "The request does not fit the model's context window even after compacting the \
         conversation. Start a new session, or choose a model with a larger window."
            .into()
    } else {
        "The request does not fit the model's context window and automatic compaction is off \
         (\"compaction\": {\"auto\": false}). Send /compact, or start a new session."
            .into()
    })
}

/// Clears old tool outputs from later requests (unless `compaction.prune` is false).
fn prune(state: &mut SessionState, services: &Services) {
    if state.config.config.compaction.prune == Some(false) {
        return;
    }
    for part in context::prune::prune(&mut state.messages, now_ms()) {
        if let Err(error) = services.store.put_part(&part) {
            tracing::warn!(%error, "a pruned tool output could not be marked");
        }
    }
}

/// A command may name the agent (a primary one answers this turn) and the model.
fn apply_command(
    agents: &Agents,
    invocation: &command::Invocation,
    agent: &mut AgentInfo,
    model: &mut Option<String>,
) {
    if !invocation.subtask
        && let Some(chosen) = invocation.agent.as_deref().and_then(|a| agents.get(a))
        && chosen.is_primary()
    {
        *agent = chosen.clone();
    }
    if let Some(chosen) = &invocation.model {
        *model = Some(chosen.clone());
    }
}
