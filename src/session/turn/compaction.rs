//! Compaction: the hidden `compaction` agent condenses the conversation into an anchored
//! summary (incremental over the previous one), the last turns stay verbatim, and the summary
//! message marks the boundary the next requests start from. The store keeps everything.

use futures::StreamExt;

use crate::agent;
use crate::bus::{CompactionState, Event};
use crate::id::{MessageId, now_ms};
use crate::message::{Compaction, FinishReason, Message, MessageInfo, PartBody, Role, Usage};
use crate::provider::{
    ModelMessage, ModelRequest, ProviderError, ResolvedModel, StreamEvent, UserContent,
};
use crate::session::context;
use crate::session::context::history;
use crate::session::context::history::Style;
use crate::session::context::{tail, view, window};
use crate::session::core::state::SessionState;
use crate::session::error::SessionError;
use crate::session::turn::setup::TurnSetup;

/// Tool outputs in a compaction's request are cut to this many characters.
const TOOL_OUTPUT_MAX_CHARS: usize = 2_000;

/// Added after an automatic compaction that interrupted the agent's own work.
pub(in crate::session) const CONTINUE: &str = "Continue if you have next steps, or stop and ask for \
clarification if you are unsure how to proceed.";

/// Who asked for the compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::session) enum Trigger {
    /// The person (`/compact`).
    Manual,
    /// Tandem: the window is full (`overflow`: the provider said so).
    Auto { overflow: bool },
}

/// How a compaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::session) enum Compacted {
    Done,
    /// Nothing older than the kept turns: nothing to condense.
    Nothing,
    Cancelled,
}

/// True when the last finished model call left no room for the next step.
pub(in crate::session) fn needed(state: &SessionState, setup: &TurnSetup) -> bool {
    let last = state
        .messages
        .iter()
        .rev()
        .find(|m| m.info.role == Role::Assistant && m.info.finish.is_some());
    match last {
        Some(m) if !m.info.summary => m.info.usage.is_some_and(|usage| {
            window::overflows(&usage, &setup.model.limit, &state.config.config.compaction)
        }),
        _ => false,
    }
}

/// What a compaction condenses and what it keeps.
struct Plan<'a> {
    previous: Option<&'a Message>,
    head: Vec<&'a Message>,
    tail_start: Option<MessageId>,
    /// The person's message the turn has not answered yet (kept, after the summary).
    pending: bool,
}

fn plan<'a>(state: &'a SessionState, setup: &TurnSetup, trigger: Trigger) -> Plan<'a> {
    let config = &state.config.config.compaction;
    let view = view::view(&state.messages);
    let mut candidates = view.messages;
    let pending = match trigger {
        Trigger::Auto { .. } => take_pending(&mut candidates),
        Trigger::Manual => None,
    };
    let budget = tail::budget(config, window::usable(&setup.model.limit, config));
    let mut kept_from = tail::start(&candidates, config, budget).unwrap_or(candidates.len());
    if kept_from == 0 {
        // Everything fits in the tail: condense it all rather than nothing.
        kept_from = candidates.len();
    }
    let tail_start = candidates
        .get(kept_from)
        .or(pending.as_ref())
        .map(|m| m.info.id.clone());
    candidates.truncate(kept_from);
    Plan {
        previous: view.summary,
        head: candidates,
        tail_start,
        pending: pending.is_some(),
    }
}

/// The person's last message, when nothing has answered it yet (only failed, empty attempts
/// follow it): it is kept after the summary instead of being condensed.
fn take_pending<'a>(candidates: &mut Vec<&'a Message>) -> Option<&'a Message> {
    let at = candidates.iter().rposition(|m| m.info.role == Role::User)?;
    let answered = candidates[at + 1..].iter().any(|m| has_content(m));
    if answered {
        return None;
    }
    let pending = candidates[at];
    candidates.truncate(at);
    Some(pending)
}

/// True when a message says anything the model would be sent.
fn has_content(message: &Message) -> bool {
    message.parts.iter().any(|p| match &p.body {
        PartBody::Text { text, .. } | PartBody::Reasoning { text, .. } => !text.is_empty(),
        PartBody::Tool(_) | PartBody::File { .. } | PartBody::Resource { .. } => true,
        _ => false,
    })
}

/// The compaction's request: the condensed part of the conversation (outputs cut, no media),
/// then the summary to update, if any, and the instructions.
fn request(
    plan: &Plan<'_>,
    setup: &TurnSetup,
    state: &SessionState,
    model: &ResolvedModel,
) -> ModelRequest {
    let mut messages = Vec::with_capacity(plan.head.len() * 2 + 1);
    let style = Style {
        clip_outputs: Some(TOOL_OUTPUT_MAX_CHARS),
        strip_media: true,
    };
    history::convert(&plan.head, style, &mut messages);
    let closing = match plan.previous {
        Some(previous) => format!(
            "{}\n\n<previous-summary>\n{}\n</previous-summary>\n\n{}",
            agent::SUMMARY_UPDATE,
            view::summary_text(previous),
            agent::SUMMARY_TEMPLATE
        ),
        None => format!("{}\n\n{}", agent::SUMMARY_CREATE, agent::SUMMARY_TEMPLATE),
    };
    messages.push(ModelMessage::User(vec![UserContent::Text(closing)]));
    let compaction = state.settings.agents.get("compaction");
    let prompt = compaction
        .and_then(|a| a.prompt.clone())
        .unwrap_or_else(|| agent::COMPACTION_PROMPT.to_owned());
    ModelRequest {
        model: model.api_model.clone(),
        system: vec![prompt].into(),
        messages,
        tools: Vec::new().into(),
        max_output_tokens: Some(window::max_output(&model.limit)),
        temperature: compaction.and_then(|a| a.temperature),
        top_p: compaction.and_then(|a| a.top_p),
        cache_key: setup.cache_key(),
        on_retry: Some(setup.retry.clone()),
        // A summary needs no deep thought: the model's own options, no variant.
        options: model.options.request(None),
        hosted_search: false,
    }
}

/// Condenses the session's context; on success the summary message is in `state.messages`.
pub(in crate::session) async fn run(
    state: &mut SessionState,
    setup: &TurnSetup,
    trigger: Trigger,
) -> Result<Compacted, SessionError> {
    let plan = plan(state, setup, trigger);
    if plan.head.is_empty() {
        return Ok(Compacted::Nothing);
    }
    setup
        .hooks
        .before_compact(matches!(trigger, Trigger::Manual))
        .await;
    let model = summary_model(state, setup);
    let request = request(&plan, setup, state, &model);
    let tail_start = plan.tail_start.clone();
    let pending = plan.pending;
    let tokens_before = context_tokens(state);
    let id = MessageId::new();
    let publish = |state: CompactionState| {
        setup.writer.publish(Event::Compaction {
            session_id: setup.session_id.clone(),
            compaction_id: id.clone(),
            state,
        })
    };
    publish(CompactionState::Started);
    let answer = tokio::select! {
        biased;
        _ = setup.cancel.cancelled() => None,
        answer = summarise(&model, request) => Some(answer),
    };
    let (summary, usage) = match answer {
        None => {
            publish(CompactionState::Failed {
                error: "cancelled".into(),
            });
            return Ok(Compacted::Cancelled);
        }
        Some(Err(error)) => {
            let error = explain(error);
            publish(CompactionState::Failed {
                error: error.to_string(),
            });
            return Err(error);
        }
        Some(Ok(answer)) => answer,
    };
    let mark = Compaction {
        auto: trigger != Trigger::Manual,
        overflow: trigger == Trigger::Auto { overflow: true },
        tail_start,
        tokens_before,
        tokens_after: 0,
    };
    let mut message = summary_message(state, &model, id.clone(), mark, summary.clone(), usage);
    state.messages.push(message.clone());
    let tokens_after = estimate_request(state, setup);
    if let Some(PartBody::Compaction(mark)) = message.parts.first_mut().map(|p| &mut p.body) {
        mark.tokens_after = tokens_after;
    }
    setup.writer.store_message(&message)?;
    *state.messages.last_mut().expect("just pushed") = message;
    if trigger != Trigger::Manual && !pending {
        continue_message(state, setup)?;
    }
    publish(CompactionState::Completed {
        summary,
        tokens_before,
        tokens_after,
    });
    setup.writer.publish(Event::Usage {
        session_id: setup.session_id.clone(),
        usage: Usage {
            input: tokens_after,
            ..Usage::default()
        },
        context_window: setup.model.limit.context,
        cost: crate::session::turn::step::session_cost(&state.messages),
    });
    Ok(Compacted::Done)
}

/// The model that writes the summary: the `compaction` agent's own, when configured and
/// usable; else the small model beside the turn's when its window is at least as large (it
/// must read what the turn's model read); else the turn's.
fn summary_model(state: &SessionState, setup: &TurnSetup) -> ResolvedModel {
    let configured = state
        .settings
        .agents
        .get("compaction")
        .and_then(|a| a.model.as_deref());
    match configured.map(|name| crate::provider::resolve(&state.config, Some(name))) {
        Some(Ok(model)) => model,
        Some(Err(error)) => {
            tracing::warn!(%error, "the compaction agent's model is unusable; using the turn's");
            setup.model.clone()
        }
        None => crate::provider::choose::small_model(&state.config, &setup.model.full_id())
            .and_then(|name| crate::provider::resolve(&state.config, Some(&name)).ok())
            .filter(|small| small.limit.context >= setup.model.limit.context)
            .unwrap_or_else(|| setup.model.clone()),
    }
}

/// The model's summary (thinking stripped) and what the call used.
async fn summarise(
    model: &ResolvedModel,
    request: ModelRequest,
) -> Result<(String, Usage), ProviderError> {
    let mut events = model.client.stream(request).await?;
    let mut text = String::new();
    let mut usage = Usage::default();
    let mut finish = FinishReason::Stop;
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::TextDelta(delta) => text.push_str(&delta),
            StreamEvent::Usage(u) => usage = u,
            StreamEvent::Finish(reason) => finish = reason,
            _ => {}
        }
    }
    let summary = strip_thinking(&text).trim().to_owned();
    if summary.is_empty() {
        return Err(ProviderError::Stream {
            provider: model.provider_id.clone(),
            detail: "the compaction model answered with no summary".into(),
        });
    }
    if finish == FinishReason::Length {
        tracing::warn!("the compaction summary was cut at the output limit");
    }
    Ok((summary, usage))
}

/// A failed compaction in words the person can act on.
fn explain(error: ProviderError) -> SessionError {
    if error.is_context_overflow() {
        SessionError::ContextOverflow(format!(
            "The conversation is too long for the model's context window, even to summarise it \
             ({error}). Start a new session, or choose a model with a larger window."
        ))
    } else {
        SessionError::Provider(error)
    }
}

/// `<think>…</think>` blocks some models write before their answer.
pub(in crate::session) fn strip_thinking(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(end) => rest = &rest[start + end + "</think>".len()..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The context the last model call filled (or an estimate of the history, if none reported).
fn context_tokens(state: &SessionState) -> u64 {
    state
        .messages
        .iter()
        .rev()
        .find(|m| {
            m.info.role == Role::Assistant && m.info.usage.is_some_and(|u| u != Usage::default())
        })
        .and_then(|m| m.info.usage)
        .map(|u| u.context_tokens())
        .unwrap_or_else(|| {
            let view = view::view(&state.messages);
            view.messages
                .iter()
                .map(|m| context::message_tokens(m))
                .sum()
        })
}

/// An estimate of the next request's input: system prompt, tools and the history it sends.
fn estimate_request(state: &SessionState, setup: &TurnSetup) -> u64 {
    let system: usize = setup.system.iter().map(String::len).sum();
    let tools: usize = setup.specs.iter().map(crate::provider::spec_chars).sum();
    let view = view::view(&state.messages);
    let summary = view.summary.map_or(0, context::message_tokens);
    crate::provider::tokens(system + tools)
        + summary
        + view
            .messages
            .iter()
            .map(|m| context::message_tokens(m))
            .sum::<u64>()
}

fn summary_message(
    state: &SessionState,
    model: &ResolvedModel,
    id: MessageId,
    mark: Compaction,
    summary: String,
    usage: Usage,
) -> Message {
    let now = now_ms();
    let cost = crate::session::turn::step::price(model, &usage);
    let mut info = MessageInfo::new(state.info.id.clone(), Role::Assistant, "compaction", now);
    info.id = id;
    info.completed_at = Some(now);
    info.model = Some(model.full_id());
    info.finish = Some(FinishReason::Stop);
    info.usage = Some(usage);
    info.cost = cost;
    info.summary = true;
    let parts = [
        PartBody::Compaction(mark),
        PartBody::Text {
            text: summary,
            synthetic: false,
        },
        PartBody::StepFinish {
            reason: FinishReason::Stop,
            usage,
            cost,
        },
    ];
    Message::with_parts(info, parts)
}

/// The synthetic user message that lets the agent go on after an automatic compaction.
fn continue_message(state: &mut SessionState, setup: &TurnSetup) -> Result<(), SessionError> {
    let info = MessageInfo::new(
        state.info.id.clone(),
        Role::User,
        &setup.agent.name,
        now_ms(),
    );
    let text = PartBody::Text {
        text: CONTINUE.to_owned(),
        synthetic: true,
    };
    let message = Message::with_parts(info, [text]);
    setup.writer.store_message(&message)?;
    state.messages.push(message);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_is_stripped() {
        assert_eq!(strip_thinking("<think>hmm</think>## Goal"), "## Goal");
        assert_eq!(strip_thinking("a<think>x</think>b<think>y"), "ab");
    }
}
