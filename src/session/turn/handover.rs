//! When the agent in front of the editor hits a usage limit, cannot work at all or goes silent
//! past its bound: the person is offered to go on with the same session on Tandem's own loop
//! (its model, or another configured one) or on another agent of the config; the history, todo
//! list and changed files are the session's already. The switch is stored, shown, and the turn
//! goes on there.

use serde_json::json;

use crate::bus::Event;
use crate::message::ToolKind;
use crate::session::core::state::{Services, SessionState};
use crate::session::error::SessionError;
use crate::session::turn::setup::TurnSetup;
use crate::tool::PermissionRequest;
use crate::tool::question::{Choice, Question, QuestionReply, QuestionRequest};

/// The permission the offer is asked under (never judged by the config's rules).
const HANDOVER: &str = "handover";

/// The most places offered at once (a question takes up to six choices).
const MOST: usize = 5;

/// Why the agent cannot go on now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::session) enum Stopped {
    /// Out of its usage for now.
    Limit,
    /// It cannot start or work at all: not installed, not signed in, refused to open.
    ForGood,
    /// It said nothing for its `silence_timeout` mid-turn and was stopped (an agent waiting
    /// out its provider's `retry-after` says nothing while it waits).
    Silent,
}

/// Whether an external agent's failure is one the person may hand the session over for.
pub(in crate::session) fn stopped(why: &str) -> Option<Stopped> {
    let lower = why.to_lowercase();
    let limit = [
        "429",
        "rate limit",
        "rate_limit",
        "usage limit",
        "quota",
        "too many requests",
    ];
    // Tandem's own words for an agent that cannot work (remote/agent.rs, remote/process.rs).
    let for_good = [
        "was not found: is it installed",
        "could not be started",
        "needs you to sign in first",
        "did not answer `initialize`",
        "did not open a session",
    ];
    if limit.iter().any(|sign| lower.contains(sign)) {
        Some(Stopped::Limit)
    } else if for_good.iter().any(|sign| why.contains(sign)) {
        Some(Stopped::ForGood)
    } else if why.contains("in the middle of its turn, and was stopped") {
        Some(Stopped::Silent)
    } else {
        None
    }
}

/// Where the session may go on.
#[derive(Debug, Clone, PartialEq)]
enum Place {
    /// Tandem's own default agent on this model.
    Own(String),
    /// Another agent of the config (an external one, or a primary agent of Tandem's).
    Agent(String),
}

impl Place {
    fn label(&self) -> String {
        match self {
            Place::Own(model) => format!("Tandem on {model}"),
            Place::Agent(name) => format!("The agent {name}"),
        }
    }
}

/// Where the session may go on from `from`: Tandem's loop on its model, then on the other
/// configured models, then the config's other external agents.
fn places(state: &SessionState, from: &str) -> Vec<Place> {
    let mut places = Vec::new();
    let chosen = state.settings.model();
    if let Ok(model) = crate::provider::resolve(&state.config, chosen.as_deref()) {
        places.push(Place::Own(model.full_id()));
    }
    for (provider, config) in &state.config.config.provider {
        for model in config.models.keys() {
            let place = Place::Own(format!("{provider}/{model}"));
            if !places.contains(&place) {
                places.push(place);
            }
        }
    }
    for agent in state.settings.agents.modes() {
        if agent.acp.is_some() && agent.name != from {
            places.push(Place::Agent(agent.name.clone()));
        }
    }
    places.truncate(MOST);
    places
}

/// Offers the person to go on elsewhere after `why`; when taken, switches the session there
/// and `setup` with it. False when not taken, or when there is nowhere to go.
pub(in crate::session) async fn take(
    state: &mut SessionState,
    setup: &mut TurnSetup,
    services: &Services,
    (why, stopped): (&str, Stopped),
) -> Result<bool, SessionError> {
    let from = setup.agent.name.clone();
    let places = places(state, &from);
    let Some(place) = choose(state, setup, &from, why, places).await else {
        return Ok(false);
    };
    let what = match stopped {
        Stopped::Limit => "hit its usage limit",
        Stopped::ForGood => "could not work",
        Stopped::Silent => "went silent",
    };
    let (mode, model, line) = match &place {
        Place::Own(model) => {
            let own = crate::agent::DEFAULT_AGENT;
            let line = format!("Tandem's own `{own}` agent on {model}");
            (own.to_owned(), model.clone(), line)
        }
        Place::Agent(name) => {
            let line = format!("the agent `{name}`");
            (name.clone(), setup.model.full_id(), line)
        }
    };
    super::plan_approval::switch_mode(state, setup, services, &mode, model)?;
    setup.writer.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: crate::id::MessageId::new(),
        part_id: crate::id::PartId::new(),
        delta: format!("\n(`{from}` {what}; this session goes on with {line}.)\n\n"),
    });
    Ok(true)
}

/// The place the person chose: one place is a yes or no; several, a question of them.
async fn choose(
    state: &SessionState,
    setup: &TurnSetup,
    from: &str,
    why: &str,
    places: Vec<Place>,
) -> Option<Place> {
    let why = why.lines().next().unwrap_or(why);
    let call_id = format!("handover-{}", crate::id::ulid());
    if let [place] = places.as_slice() {
        let (to, model, title) = match place {
            Place::Own(model) => {
                let own = crate::agent::DEFAULT_AGENT;
                (
                    own.to_owned(),
                    model.clone(),
                    format!("Tandem's own `{own}` agent with {model}"),
                )
            }
            Place::Agent(name) => (name.clone(), String::new(), format!("the agent `{name}`")),
        };
        let question = PermissionRequest {
            session_id: state.info.id.clone(),
            call_id,
            tool: HANDOVER.into(),
            kind: ToolKind::SwitchMode,
            permission: HANDOVER.into(),
            title: format!(
                "The agent `{from}` stopped: {why}\nGo on with this session on {title}? The \
                 conversation, the todo list and the changed files carry over."
            ),
            input: json!({"from": from, "to": to, "model": model}),
            locations: Vec::new(),
            diffs: Vec::new(),
        };
        let allowed = setup.port.request_permission(question).await.allows();
        return allowed.then(|| place.clone());
    }
    if places.is_empty() {
        return None;
    }
    let question = Question {
        question: format!(
            "The agent `{from}` stopped: {why}\nGo on with this session elsewhere? The \
             conversation, the todo list and the changed files carry over."
        ),
        header: "Hand over".into(),
        options: places
            .iter()
            .map(|p| Choice {
                label: p.label(),
                description: String::new(),
            })
            .collect(),
        multiple: false,
        custom: false,
    };
    let request = QuestionRequest {
        session_id: state.info.id.clone(),
        call_id,
        questions: vec![question],
    };
    let QuestionReply::Answered(answers) = setup.port.ask_questions(request).await else {
        return None;
    };
    let chosen = answers.first()?.chosen.first()?.clone();
    places.into_iter().find(|p| p.label() == chosen)
}

#[cfg(test)]
mod tests {
    use super::{Stopped, stopped};

    #[test]
    fn a_limit_or_an_agent_that_cannot_work_is_told_by_its_words() {
        assert_eq!(stopped("HTTP 429: Too Many Requests"), Some(Stopped::Limit));
        assert_eq!(
            stopped("You've hit your usage limit. Resets at 5pm"),
            Some(Stopped::Limit)
        );
        assert_eq!(
            stopped("The agent `x` (`x`) needs you to sign in first: sign in"),
            Some(Stopped::ForGood)
        );
        assert_eq!(
            stopped(
                "The agent `o` (`o`) said nothing for 600 s in the middle of its turn, and was stopped."
            ),
            Some(Stopped::Silent)
        );
        assert_eq!(stopped("exited (exit status: 3) before it finished"), None);
    }
}
