//! One prompt turn: store the person's message, settle what the turn runs with (a command may
//! choose the agent and model), then step after step while the model asks for tools, bounded
//! by the agent's `steps`, and say why the turn stopped.

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::error::{SessionError, StopReason};
use super::setup::{TurnChoice, TurnSetup};
use super::state::{Services, SessionState};
use super::step::{self, StepOutcome};
use super::{command, title};
use crate::agent::{self, AgentInfo, Agents};
use crate::bus::Event;
use crate::id::{MessageId, PartId, now_ms};
use crate::message::{Message, MessageInfo, Part, PartBody, Role};
use crate::permission::{Action, Rule};
use crate::tool::ClientPort;

pub(super) async fn run(
    state: &mut SessionState,
    services: &Services,
    content: Vec<PartBody>,
    port: Arc<dyn ClientPort>,
    cancel: CancellationToken,
) -> Result<StopReason, SessionError> {
    let mut agent = state.settings.agent();
    let mut model = state.settings.model();
    let command = command::parse(
        &content,
        &state.config.config.command,
        &state.settings.agents,
    );
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
    let mut mentioned = mentioned_subagents(&state.settings.agents, &content);
    store_user_message(state, services, &agent, content, &mentioned)?;
    let subtask = command.filter(|c| c.subtask);
    if let Some(invocation) = &subtask {
        mentioned.push(invocation.agent.clone().unwrap_or_else(|| "general".into()));
    }
    let granted = mentioned
        .iter()
        .map(|name| Rule::new("task", name, Action::Allow))
        .collect();
    let choice = TurnChoice {
        agent,
        model,
        granted,
    };
    let setup = TurnSetup::new(state, services, choice, port, cancel)?;
    if let Some(invocation) = subtask {
        let input = json!({
            "description": invocation.description.clone().unwrap_or_else(|| format!("/{}", invocation.name)),
            "prompt": invocation.text,
            "subagent_type": invocation.agent.unwrap_or_else(|| "general".into()),
            "command": invocation.name,
        });
        if let StepOutcome::Ended(stop) = step::run_subtask(state, &setup, input).await? {
            return Ok(stop);
        }
    }
    let mut step = 0u32;
    loop {
        step += 1;
        let last_step = setup.agent.steps.is_some_and(|max| step >= max);
        match step::run(state, &setup, last_step).await? {
            StepOutcome::ToolsRan if last_step => return Ok(StopReason::MaxTurnRequests),
            StepOutcome::ToolsRan => {}
            StepOutcome::Ended(stop) => return Ok(stop),
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

/// The subagents the person named with `@name` in their message.
fn mentioned_subagents(agents: &Agents, content: &[PartBody]) -> Vec<String> {
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
            let known = agents
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
    services: &Services,
    agent: &AgentInfo,
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
        agent: agent.name.clone(),
        model: None,
        finish: None,
        usage: None,
        cost: None,
        error: None,
    };
    if title::is_default_title(&state.info.title)
        && let Some(title) = title::from_prompt(&content)
    {
        state.info.title = title;
        state.info.updated_at = now;
        services
            .store
            .set_session_title(&state.info.id, &state.info.title, now)?;
        services.bus.publish(Event::SessionUpdated {
            info: state.info.clone(),
        });
    }
    services.store.put_message(&info)?;
    let mut content = content;
    if let Some(reminder) = reminder(&agent.name, &state.messages) {
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
        services.store.put_part(part)?;
    }
    state.messages.push(Message { info, parts });
    Ok(())
}

/// The mode reminder for a turn of `agent`: plan mode's rules, or the switch back to build.
fn reminder(agent: &str, history: &[Message]) -> Option<&'static str> {
    if agent == "plan" {
        return Some(agent::PLAN_REMINDER);
    }
    let previous = history
        .iter()
        .rev()
        .find(|m| m.info.role == Role::Assistant)
        .map(|m| m.info.agent.as_str());
    (agent == "build" && previous == Some("plan")).then_some(agent::BUILD_SWITCH_REMINDER)
}
