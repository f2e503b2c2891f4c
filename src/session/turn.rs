//! One prompt turn: store the person's message, then call the model step after step while
//! it asks for tools, bounded by the agent's `steps`, and say why the turn stopped.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::actor::SessionState;
use super::permission::Gate;
use super::setup::TurnSetup;
use super::{SessionError, StopReason, command, is_default_title, step, title_from_prompt};
use crate::bus::Event;
use crate::id::{MessageId, PartId, now_ms};
use crate::message::{FinishReason, Message, MessageInfo, Part, PartBody, Role};
use crate::permission::{Action, Rule};
use crate::tool::ClientPort;
use crate::{agent, provider};
use serde_json::json;

pub(super) async fn run(
    state: &mut SessionState,
    content: Vec<PartBody>,
    port: Arc<dyn ClientPort>,
    cancel: CancellationToken,
) -> Result<StopReason, SessionError> {
    state.agent = state.settings.agent();
    state.model = state.settings.model();
    let command = command::parse(
        &content,
        &state.config.config.command,
        &state.settings.agents,
    );
    let content = match &command {
        Some(invocation) => {
            apply_command(state, invocation);
            vec![PartBody::Text {
                text: invocation.text.clone(),
                synthetic: false,
            }]
        }
        None => content,
    };
    let mut mentioned = mentioned_subagents(state, &content);
    store_user_message(state, content, &mentioned)?;
    let subtask = command.filter(|c| c.subtask);
    if let Some(invocation) = &subtask {
        mentioned.push(invocation.agent.clone().unwrap_or_else(|| "general".into()));
    }
    let model = provider::resolve(&state.config, state.model.as_deref())?;
    let granted = mentioned
        .iter()
        .map(|name| Rule::new("task", name, Action::Allow))
        .collect();
    let gate = Arc::new(Gate::new(state, port.clone(), granted)?);
    let setup = TurnSetup::new(state, model, port, gate, cancel);
    if let Some(invocation) = subtask {
        let input = json!({
            "description": invocation.description.clone().unwrap_or_else(|| format!("/{}", invocation.name)),
            "prompt": invocation.text,
            "subagent_type": invocation.agent.unwrap_or_else(|| "general".into()),
            "command": invocation.name,
        });
        if step::run_subtask(state, &setup, input).await? == FinishReason::Cancelled {
            return Ok(StopReason::Cancelled);
        }
    }
    let mut step = 0u32;
    loop {
        step += 1;
        let last_step = state.agent.steps.is_some_and(|max| step >= max);
        let finish = step::run(state, &setup, last_step).await?;
        return Ok(match finish {
            FinishReason::ToolCalls if last_step => StopReason::MaxTurnRequests,
            FinishReason::ToolCalls => continue,
            FinishReason::Length => StopReason::MaxTokens,
            FinishReason::ContentFilter => StopReason::Refusal,
            FinishReason::Cancelled => StopReason::Cancelled,
            FinishReason::MaxSteps => StopReason::MaxTurnRequests,
            FinishReason::Stop | FinishReason::Error => StopReason::EndTurn,
        });
    }
}

/// A command may name the agent (a primary one answers this turn) and the model.
fn apply_command(state: &mut SessionState, invocation: &command::Invocation) {
    if !invocation.subtask
        && let Some(agent) = invocation
            .agent
            .as_deref()
            .and_then(|a| state.settings.agents.get(a))
        && agent.is_primary()
    {
        state.agent = agent.clone();
    }
    if let Some(model) = &invocation.model {
        state.model = Some(model.clone());
    }
}

/// The subagents the person named with `@name` in their message.
fn mentioned_subagents(state: &SessionState, content: &[PartBody]) -> Vec<String> {
    let mut names = Vec::new();
    for part in content {
        let PartBody::Text {
            text,
            synthetic: false,
        } = part
        else {
            continue;
        };
        for word in text.split_whitespace() {
            let Some(name) = word.strip_prefix('@') else {
                continue;
            };
            let name =
                name.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_');
            let known = state
                .settings
                .agents
                .get(name)
                .is_some_and(|a| a.is_subagent() && !a.hidden);
            if known && !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

fn store_user_message(
    state: &mut SessionState,
    content: Vec<PartBody>,
    mentioned: &[String],
) -> Result<(), SessionError> {
    let now = now_ms();
    let info = MessageInfo {
        id: MessageId::new(),
        session_id: state.info.id.clone(),
        role: Role::User,
        created_at: now,
        completed_at: Some(now),
        agent: state.agent.name.clone(),
        model: None,
        finish: None,
        usage: None,
        cost: None,
        error: None,
    };
    if is_default_title(&state.info.title)
        && let Some(title) = title_from_prompt(&content)
    {
        state.info.title = title;
        state.info.updated_at = now;
        state
            .store
            .set_session_title(&state.info.id, &state.info.title, now)?;
        state.bus.publish(Event::SessionUpdated {
            info: state.info.clone(),
        });
    }
    state.store.put_message(&info)?;
    let mut content = content;
    if let Some(reminder) = reminder(state) {
        content.push(PartBody::Text {
            text: reminder.to_owned(),
            synthetic: true,
        });
    }
    for name in mentioned {
        content.push(PartBody::Text {
            text: format!(
                "<system-reminder>The user asked for the @{name} agent: delegate this request to it with the task tool (subagent_type \"{name}\").</system-reminder>"
            ),
            synthetic: true,
        });
    }
    let parts: Vec<Part> = content
        .into_iter()
        .map(|body| Part {
            id: PartId::new(),
            message_id: info.id.clone(),
            session_id: info.session_id.clone(),
            body,
        })
        .collect();
    for part in &parts {
        state.store.put_part(part)?;
    }
    state.messages.push(Message { info, parts });
    Ok(())
}

/// The mode reminder for this turn: plan mode's rules, or the switch back to build.
fn reminder(state: &SessionState) -> Option<&'static str> {
    if state.agent.name == "plan" {
        return Some(agent::PLAN_REMINDER);
    }
    let previous = state
        .messages
        .iter()
        .rev()
        .find(|m| m.info.role == Role::Assistant)
        .map(|m| m.info.agent.as_str());
    (state.agent.name == "build" && previous == Some("plan"))
        .then_some(agent::BUILD_SWITCH_REMINDER)
}
