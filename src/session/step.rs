//! One step of a turn: a model call streamed into a new assistant message (`stream`), the tool
//! calls it asked for (`calls`), then the finished message with its usage and cost.

use std::sync::Arc;

use serde_json::Value;

use super::calls::{self, CallsOutcome};
use super::error::{SessionError, StopReason};
use super::history;
use super::setup::TurnSetup;
use super::state::SessionState;
use super::stream::{Draft, Streamed};
use crate::bus::Event;
use crate::message::{FinishReason, Message, Usage};
use crate::provider::{AssistantContent, ModelMessage, ModelRequest, ProviderError, ToolSpec};
use crate::tool::ToolError;

/// Told to the model on the last allowed step, with no tools offered.
const MAX_STEPS: &str = "CRITICAL - MAXIMUM STEPS REACHED\n\nThe maximum number of steps \
allowed for this task has been reached. Tools are disabled until next user input. Respond with \
text only.\n\nSummarise the work done so far, list the tasks that remain, and recommend what \
to do next.";

/// What the turn does after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StepOutcome {
    /// The model's tool calls ran: call it again with their results.
    ToolsRan,
    /// The turn is over, for this reason.
    Ended(StopReason),
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

/// Runs one step; on the `last_step` the model gets no tools and is told to wrap up.
pub(super) async fn run(
    state: &mut SessionState,
    setup: &TurnSetup,
    last_step: bool,
) -> Result<StepOutcome, SessionError> {
    let mut messages = history::to_model_messages(&state.messages);
    if last_step {
        messages.push(ModelMessage::Assistant(vec![AssistantContent::Text(
            MAX_STEPS.into(),
        )]));
    }
    let specs: Arc<[ToolSpec]> = if last_step {
        Arc::new([])
    } else {
        setup.specs.clone()
    };
    let offered: Vec<&str> = specs.iter().map(|t| t.name.as_str()).collect();
    let request = ModelRequest {
        model: setup.model.api_model.clone(),
        system: setup.system.clone(),
        messages,
        tools: specs.clone(),
        max_output_tokens: setup.model.limit.output,
        temperature: setup.agent.temperature,
        top_p: setup.agent.top_p,
    };
    let mut draft = Draft::begin(
        setup.writer.clone(),
        &setup.session_id,
        &setup.agent.name,
        &setup.model,
    )?;
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
    let (reason, usage) = match streamed {
        Streamed::Failed(error) => {
            draft.fail_pending(&ToolError::failed(
                "The model's answer was cut off before this call could run.",
            ))?;
            finish(
                state,
                setup,
                draft,
                FinishReason::Error,
                Usage::default(),
                Some(&error),
            )?;
            return Err(error.into());
        }
        Streamed::Cancelled => (FinishReason::Cancelled, Usage::default()),
        Streamed::Finished { reason, usage } => (reason, usage),
    };
    let reason = if reason == FinishReason::Cancelled {
        draft.fail_pending(&ToolError::Cancelled)?;
        reason
    } else if !draft.pending_calls().is_empty() {
        match calls::run(&mut draft, &offered, setup, &state.messages).await? {
            CallsOutcome::AllRan => FinishReason::ToolCalls,
            CallsOutcome::Cancelled => FinishReason::Cancelled,
        }
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
pub(super) async fn run_subtask(
    state: &mut SessionState,
    setup: &TurnSetup,
    input: Value,
) -> Result<StepOutcome, SessionError> {
    let mut draft = Draft::begin(
        setup.writer.clone(),
        &setup.session_id,
        &setup.agent.name,
        &setup.model,
    )?;
    let call_id = format!("call_{}", crate::id::ulid());
    draft.on_tool_call(
        call_id,
        "task".into(),
        input.to_string(),
        &setup.tools,
        &setup.cwd,
    )?;
    let reason = match calls::run(&mut draft, &["task"], setup, &state.messages).await? {
        CallsOutcome::AllRan => FinishReason::ToolCalls,
        CallsOutcome::Cancelled => FinishReason::Cancelled,
    };
    let outcome = StepOutcome::after(&reason);
    finish(state, setup, draft, reason, Usage::default(), None)?;
    Ok(outcome)
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
    let cost = model.cost.map(|c| {
        (usage.input as f64 * c.input
            + usage.output as f64 * c.output
            + usage.cache_read as f64 * c.cache_read
            + usage.cache_write as f64 * c.cache_write)
            / 1_000_000.0
    });
    let counts = error.is_none() && reason != FinishReason::Cancelled;
    let message = draft.finish(reason, usage, cost, error)?;
    state.info.updated_at = message.info.completed_at.unwrap_or_default();
    state.messages.push(message);
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

/// The session's spend so far, if any message had a known price.
fn session_cost(messages: &[Message]) -> Option<f64> {
    let costs: Vec<f64> = messages.iter().filter_map(|m| m.info.cost).collect();
    (!costs.is_empty()).then(|| costs.iter().sum())
}
