//! The person's message as a turn stores it: the reminders it carries (the mode's rules,
//! background jobs that ended, subagents they @named), and the session's title from it.

use super::{jobs, title};
use crate::agent::{self, AgentInfo, Agents};
use crate::bus::Event;
use crate::id::now_ms;
use crate::message::{Message, MessageInfo, PartBody, Role};
use crate::session::core::state::{Services, SessionState};
use crate::session::error::SessionError;

/// The subagents the person named with `@name` in their message.
pub(super) fn mentioned_subagents(agents: &Agents, content: &[PartBody]) -> Vec<String> {
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

pub(super) fn store_user_message(
    state: &mut SessionState,
    services: &Services,
    agent: &AgentInfo,
    content: Vec<PartBody>,
    mentioned: &[String],
) -> Result<bool, SessionError> {
    let now = now_ms();
    let info = MessageInfo::new(state.info.id.clone(), Role::User, &agent.name, now);
    let mut titled = false;
    if title::is_default_title(&state.info.title)
        && let Some(stored) = services.store.get_session(&state.info.id)?
    {
        // The person may have named the session since it opened (`session/set_title`).
        state.info.title = stored.title;
    }
    if title::is_default_title(&state.info.title)
        && let Some(title) = title::from_prompt(&content)
    {
        titled = true;
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
    if let Some(ended) = jobs::ended_reminder(state) {
        content.push(PartBody::Text {
            text: ended,
            synthetic: true,
        });
    }
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
    let message = Message::with_parts(info, content);
    for part in &message.parts {
        services.store.put_part(part)?;
    }
    state.messages.push(message);
    Ok(titled)
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
