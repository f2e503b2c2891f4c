//! One step of a turn: a model call streamed into a new assistant message (`stream`), the tool
//! calls it asked for (`calls`), then the finished message with its usage and cost.

use std::sync::Arc;

use serde_json::Value;

use super::calls;
use super::retry;
use super::setup::TurnSetup;
use super::stream::{Draft, Streamed};
use crate::bus::Event;
use crate::message::{FinishReason, Message, Usage};
use crate::provider::{
    AssistantContent, ModelMessage, ModelRequest, ProviderError, ResolvedModel, ToolSpec,
};
use crate::session::context::history;
use crate::session::context::window;
use crate::session::error::{SessionError, StopReason};
use crate::session::state::SessionState;
use crate::tool::ToolError;

/// Told to the model on the last allowed step, with no tools offered.
const MAX_STEPS: &str = "CRITICAL - MAXIMUM STEPS REACHED\n\nThe maximum number of steps \
allowed for this task has been reached. Tools are disabled until next user input. Respond with \
text only.\n\nSummarise the work done so far, list the tasks that remain, and recommend what \
to do next.";

/// What the turn does after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::session) enum StepOutcome {
    /// The model's tool calls ran: call it again with their results.
    ToolsRan,
    /// The turn is over, for this reason.
    Ended(StopReason),
    /// The request did not fit the model's window (the provider said so, or the answer was cut
    /// with no room left): compact, then run the step again.
    Overflow,
    /// The answer broke off mid-stream and was set aside: wait this long, then run the step
    /// again.
    Broken(std::time::Duration),
}

impl StepOutcome {
    /// How a step that finished for `reason` leaves the turn.
    fn after(reason: &FinishReason) -> Self {
        match reason {
            FinishReason::ToolCalls => StepOutcome::ToolsRan,
            FinishReason::Length => StepOutcome::Ended(StopReason::MaxTokens),
            FinishReason::ContentFilter => StepOutcome::Ended(StopReason::Refusal),
            FinishReason::Cancelled => StepOutcome::Ended(StopReason::Cancelled),
            FinishReason::MaxSteps => StepOutcome::Ended(StopReason::MaxTurnRequests),
            FinishReason::Stop | FinishReason::Error => StepOutcome::Ended(StopReason::EndTurn),
        }
    }
}

/// The model request of a step: the history, and on the `last_step` no tools and a note.
fn request(state: &SessionState, setup: &TurnSetup, last_step: bool) -> ModelRequest {
    let mut messages = history::to_model_messages(&state.messages);
    if last_step {
        messages.push(ModelMessage::Assistant(vec![AssistantContent::Text(
            MAX_STEPS.into(),
        )]));
    }
    let tools: Arc<[ToolSpec]> = if last_step {
        Arc::new([])
    } else {
        setup.specs.clone()
    };
    ModelRequest {
        model: setup.model.api_model.clone(),
        system: setup.system.clone(),
        messages,
        tools,
        max_output_tokens: setup.model.limit.output,
        temperature: setup.agent.temperature,
        top_p: setup.agent.top_p,
        cache_key: setup.cache_key(),
        on_retry: Some(setup.retry.clone()),
    }
}

/// Runs one step; on the `last_step` the model gets no tools and is told to wrap up.
pub(in crate::session) async fn run(
    state: &mut SessionState,
    setup: &TurnSetup,
    last_step: bool,
    broken_before: u32,
) -> Result<StepOutcome, SessionError> {
    let request = request(state, setup, last_step);
    let tools = request.tools.clone();
    let offered: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let mut draft = begin(setup)?;
    let streamed = draft
        .stream(
            &setup.model,
            request,
            &setup.cancel,
            &setup.tools,
            &setup.cwd,
        )
        .await?;
    draft.close_open()?;
    if let Streamed::Failed(error) = &streamed
        && let Some(delay) = retry::again(&setup.model.retry, broken_before, error)
    {
        // Set aside: the person sees why and how long Tandem waits; the model never sees it.
        draft.info.retried = true;
        let wait = retry::Wait {
            attempt: broken_before + 1,
            error: error.to_string(),
            delay,
        };
        retry::tell(&setup.retry, &wait);
        draft.save(retry::part(wait), None)?;
        let note = "The model's answer broke off before this call could run; it is asked again.";
        fail(state, setup, draft, note, error)?;
        return Ok(StepOutcome::Broken(delay));
    }
    let (reason, usage) = match streamed {
        Streamed::Failed(error) if error.is_context_overflow() => {
            let note = "The request did not fit the model's context window; this call never ran.";
            fail(state, setup, draft, note, &error)?;
            return Ok(StepOutcome::Overflow);
        }
        Streamed::Finished {
            reason: FinishReason::Length,
            usage,
        } if window::overflows(&usage, &setup.model.limit, &state.config.config.compaction) => {
            draft.fail_pending(&ToolError::failed(
                "The answer was cut off at the end of the context window before this call could run.",
            ))?;
            finish(state, setup, draft, FinishReason::Length, usage, None)?;
            return Ok(StepOutcome::Overflow);
        }
        Streamed::Failed(error) => {
            let note = "The model's answer was cut off before this call could run.";
            fail(state, setup, draft, note, &error)?;
            return Err(error.into());
        }
        Streamed::Cancelled => (FinishReason::Cancelled, Usage::default()),
        Streamed::Finished { reason, usage } => (reason, usage),
    };
    let reason = if reason == FinishReason::Cancelled {
        draft.fail_pending(&ToolError::Cancelled)?;
        reason
    } else if !draft.pending_calls().is_empty() {
        let go_on = state.config.config.continue_loop_on_deny == Some(true);
        calls::run_between_snapshots(&mut draft, &offered, setup, &state.messages, go_on).await?
    } else if reason == FinishReason::ToolCalls {
        // Asked for tools but sent none: nothing would change on another step.
        FinishReason::Stop
    } else {
        reason
    };
    let outcome = StepOutcome::after(&reason);
    finish(state, setup, draft, reason, usage, None)?;
    Ok(outcome)
}

/// A step the person asked for directly (a `subtask` command): no model call, just the `task`
/// call with `input`; the turn goes on so the model can answer with its result.
pub(in crate::session) async fn run_subtask(
    state: &mut SessionState,
    setup: &TurnSetup,
    input: Value,
) -> Result<StepOutcome, SessionError> {
    let mut draft = begin(setup)?;
    let call_id = format!("call_{}", crate::id::ulid());
    draft.on_tool_call(
        call_id,
        "task".into(),
        input.to_string(),
        &setup.tools,
        &setup.cwd,
    )?;
    let go_on = state.config.config.continue_loop_on_deny == Some(true);
    let reason =
        calls::run_between_snapshots(&mut draft, &["task"], setup, &state.messages, go_on).await?;
    let outcome = StepOutcome::after(&reason);
    finish(state, setup, draft, reason, Usage::default(), None)?;
    Ok(outcome)
}

/// A new assistant message of this turn's agent and model.
fn begin(setup: &TurnSetup) -> Result<Draft, SessionError> {
    Ok(Draft::begin(
        setup.writer.clone(),
        &setup.session_id,
        &setup.agent.name,
        &setup.model,
    )?)
}

/// Completes the draft into the session's history, and (unless it failed or was cancelled)
/// tells the editor the context usage and the session's cost so far.
fn finish(
    state: &mut SessionState,
    setup: &TurnSetup,
    draft: Draft,
    reason: FinishReason,
    usage: Usage,
    error: Option<&ProviderError>,
) -> Result<(), SessionError> {
    let model = &setup.model;
    let cost = price(model, &usage);
    let counts = error.is_none() && reason != FinishReason::Cancelled;
    let message = draft.finish(reason, usage, cost, error)?;
    state.info.updated_at = message.info.completed_at.unwrap_or_default();
    state.messages.push(message);
    if error.is_none() {
        state.status.spend(&usage);
    }
    if counts {
        setup.writer.publish(Event::Usage {
            session_id: state.info.id.clone(),
            usage,
            context_window: model.limit.context,
            cost: session_cost(&state.messages),
        });
    }
    Ok(())
}

/// Ends a step whose model call failed: its unfinished calls fail with `note`, the message
/// records `error`.
fn fail(
    state: &mut SessionState,
    setup: &TurnSetup,
    mut draft: Draft,
    note: &str,
    error: &ProviderError,
) -> Result<(), SessionError> {
    draft.fail_pending(&ToolError::failed(note))?;
    let usage = Usage::default();
    finish(state, setup, draft, FinishReason::Error, usage, Some(error))
}

/// What a call that used `usage` cost, when the model's prices are known.
pub(in crate::session) fn price(model: &ResolvedModel, usage: &Usage) -> Option<f64> {
    model.cost.map(|c| {
        (usage.input as f64 * c.input
            + usage.output as f64 * c.output
            + usage.cache_read as f64 * c.cache_read
            + usage.cache_write as f64 * c.cache_write)
            / 1_000_000.0
    })
}

/// The session's spend so far, if any message had a known price.
pub(in crate::session) fn session_cost(messages: &[Message]) -> Option<f64> {
    let costs: Vec<f64> = messages.iter().filter_map(|m| m.info.cost).collect();
    (!costs.is_empty()).then(|| costs.iter().sum())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, Weak};

    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::agent::Agents;
    use crate::bus::Bus;
    use crate::config::{Config, LoadedConfig};
    use crate::id::SessionId;
    use crate::message::{PartBody, SessionInfo, ToolState};
    use crate::session::host::manager::SessionManager;
    use crate::session::settings::Settings;
    use crate::session::state::Services;
    use crate::session::turn::setup::TurnChoice;
    use crate::store::Store;
    use crate::tool::{PermissionDecision, Registry, UnattendedPort};

    /// A session in a temp project whose model replays `turns`, and what its bus carried.
    struct Bench {
        _dir: tempfile::TempDir,
        state: SessionState,
        services: Services,
        events: Arc<Mutex<Vec<String>>>,
        _subscription: crate::bus::Subscription,
    }

    fn bench(turns: serde_json::Value, permission: serde_json::Value) -> Bench {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("a.txt"), "a\n").unwrap();
        let script = dir.path().join("script.json");
        std::fs::write(&script, json!({"turns": turns}).to_string()).unwrap();
        let config = json!({
            "model": "t/s",
            "provider": {"t": {"api": "scripted", "options": {"script": script}}},
            "permission": permission,
        });
        let config = Arc::new(LoadedConfig {
            config: Config::from_json_str(&config.to_string()).unwrap(),
            ..Default::default()
        });
        let store = Arc::new(Store::open_in(&dir.path().join("data")).unwrap());
        let info = SessionInfo {
            id: SessionId::new(),
            parent_id: None,
            cwd: project.clone(),
            title: "t".into(),
            created_at: 1,
            updated_at: 1,
        };
        store.create_session(&info).unwrap();
        let bus = Bus::new();
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        let subscription = bus.subscribe(move |event| {
            let line = match event {
                Event::TextDelta { delta, .. } => format!("text {delta}"),
                Event::PartUpdated { part, is_new } => match &part.body {
                    PartBody::Tool(call) => format!(
                        "tool {} {}{}",
                        call.call_id,
                        match call.state {
                            ToolState::Pending { .. } => "pending",
                            ToolState::Running { .. } => "running",
                            ToolState::Completed { .. } => "completed",
                            ToolState::Error { .. } => "error",
                        },
                        if *is_new { " (new)" } else { "" }
                    ),
                    _ => return,
                },
                Event::Usage { .. } => "usage".into(),
                _ => return,
            };
            sink.lock().unwrap().push(line);
        });
        let agents = Agents::load(&config.config, &project);
        let commands = crate::command::Commands::load(&config.config, &project);
        let status = crate::session::host::status::StatusCell::new(
            info.id.clone(),
            store.clone(),
            bus.clone(),
        );
        let state = SessionState {
            settings: Arc::new(Settings::new(config.clone(), agents, commands)),
            info,
            messages: Vec::new(),
            config,
            mcp: Arc::new(crate::mcp::McpSet::default()),
            revert: None,
            hidden: Vec::new(),
            status,
            files: Default::default(),
            jobs: Default::default(),
        };
        let services = Services {
            snapshots: Arc::new(crate::snapshot::Snapshots::disabled()),
            store,
            bus,
            tools: Registry::builtin(),
            children: Weak::<SessionManager>::new(),
        };
        Bench {
            _dir: dir,
            state,
            services,
            events,
            _subscription: subscription,
        }
    }

    fn setup(bench: &Bench, decision: PermissionDecision, cancel: CancellationToken) -> TurnSetup {
        let choice = TurnChoice {
            agent: bench.state.settings.agent(),
            model: Some("t/s".into()),
            granted: Vec::new(),
        };
        let port = Arc::new(UnattendedPort { decision });
        TurnSetup::new(&bench.state, &bench.services, choice, port, cancel).unwrap()
    }

    fn tool_state(message: &Message) -> &ToolState {
        message
            .parts
            .iter()
            .find_map(|p| match &p.body {
                PartBody::Tool(call) => Some(&call.state),
                _ => None,
            })
            .expect("a tool part")
    }

    #[tokio::test]
    async fn a_step_streams_runs_its_call_and_records_everything() {
        let mut bench = bench(
            json!([[{"text": "Looking around."}, {"tool_call": {"name": "list", "input": {}}}],
                   [{"text": "Done."}]]),
            json!({}),
        );
        let setup = setup(
            &bench,
            PermissionDecision::RejectOnce,
            CancellationToken::new(),
        );
        let outcome = run(&mut bench.state, &setup, false, 0).await.unwrap();
        assert_eq!(outcome, StepOutcome::ToolsRan);
        let message = &bench.state.messages[0];
        let ToolState::Completed { output, .. } = tool_state(message) else {
            panic!("{message:?}");
        };
        assert!(output.contains("a.txt"), "{output}");
        assert_eq!(message.info.finish, Some(FinishReason::ToolCalls));
        let events = bench.events.lock().unwrap().clone();
        let call = events
            .iter()
            .find_map(|e| e.split(' ').nth(1).filter(|_| e.starts_with("tool ")))
            .unwrap()
            .to_owned();
        assert_eq!(
            events,
            [
                "text Looking",
                "text  around.",
                &format!("tool {call} pending (new)"),
                &format!("tool {call} pending"),
                &format!("tool {call} running"),
                &format!("tool {call} completed"),
                "usage",
            ]
        );

        assert_eq!(
            run(&mut bench.state, &setup, false, 0).await.unwrap(),
            StepOutcome::Ended(StopReason::EndTurn)
        );
        // What the session holds is what the store holds.
        bench.services.store.flush().unwrap();
        let stored = bench
            .services
            .store
            .load_messages(&bench.state.info.id)
            .unwrap();
        assert_eq!(stored, bench.state.messages);
    }

    #[tokio::test]
    async fn a_rejected_call_never_runs_and_says_so_to_each_reader() {
        let mut bench = bench(
            json!([[{"tool_call": {"name": "bash", "input": {"command": "echo hi"}}}]]),
            json!({"bash": "ask"}),
        );
        let setup = setup(
            &bench,
            PermissionDecision::RejectOnce,
            CancellationToken::new(),
        );
        run(&mut bench.state, &setup, false, 0).await.unwrap();
        let ToolState::Error { error, shown, .. } = tool_state(&bench.state.messages[0]) else {
            panic!("the call failed");
        };
        assert!(error.starts_with("The user rejected permission"), "{error}");
        assert_eq!(shown.as_deref(), Some("Rejected: echo hi"));
        let events = bench.events.lock().unwrap().clone();
        assert!(!events.iter().any(|e| e.ends_with("running")), "{events:?}");
    }

    #[tokio::test]
    async fn the_last_step_offers_no_tools_and_a_cancelled_one_stops_the_turn() {
        let mut bench = bench(
            json!([[{"tool_call": {"name": "list", "input": {}}}]]),
            json!({}),
        );
        let setup = setup(
            &bench,
            PermissionDecision::AllowOnce,
            CancellationToken::new(),
        );
        // On the last step the model may still ask for a tool; none is offered, so it fails.
        run(&mut bench.state, &setup, true, 0).await.unwrap();
        let ToolState::Error { error, .. } = tool_state(&bench.state.messages[0]) else {
            panic!("no tool was offered");
        };
        assert_eq!(
            error,
            "There is no tool named `list` here. Available tools: none."
        );

        let cancel = CancellationToken::new();
        cancel.cancel();
        let setup = self::setup(&bench, PermissionDecision::AllowOnce, cancel);
        assert_eq!(
            run(&mut bench.state, &setup, false, 0).await.unwrap(),
            StepOutcome::Ended(StopReason::Cancelled)
        );
        assert_eq!(
            bench.state.messages[1].info.finish,
            Some(FinishReason::Cancelled)
        );
    }
}
