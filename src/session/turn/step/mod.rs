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
use crate::session::core::state::SessionState;
use crate::session::error::{SessionError, StopReason};
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
    // The provider's own search, where it has one, stands in for the keyed `websearch`.
    let hosted_search = !last_step && setup.hosted_search(&state.config.config);
    let tools: Arc<[ToolSpec]> = if last_step {
        Arc::new([])
    } else if hosted_search {
        setup
            .specs
            .iter()
            .filter(|t| t.name != crate::tool::websearch::NAME)
            .cloned()
            .collect()
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
        options: setup.options.clone(),
        hosted_search,
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
    let own = price(model, &usage);
    let ids = (&state.info.id, &draft.info.id);
    setup.limits.record(setup.writer.store(), ids, own)?;
    let cost = with_delegated(own, &draft);
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

/// A step's cost with what its subagents' turns cost (their `task` calls' `cost`), so the
/// session's cost covers the work it delegated.
fn with_delegated(own: Option<f64>, draft: &Draft) -> Option<f64> {
    let delegated: Vec<f64> = draft
        .parts
        .iter()
        .filter_map(|p| match &p.body {
            crate::message::PartBody::Tool(call) if call.tool == "task" => match &call.state {
                crate::message::ToolState::Completed { metadata, .. } => metadata["cost"].as_f64(),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if delegated.is_empty() {
        return own;
    }
    Some(own.unwrap_or(0.0) + delegated.iter().sum::<f64>())
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
mod tests;
