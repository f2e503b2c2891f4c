//! When the agent in front of the editor hits a usage limit: the person is offered to go on
//! with the same session on Tandem's own loop and model (its history, todo list and changed
//! files are the session's already); the switch is stored, shown, and the turn goes on there.

use serde_json::json;

use crate::bus::Event;
use crate::message::ToolKind;
use crate::session::core::state::{Services, SessionState};
use crate::session::error::SessionError;
use crate::session::turn::setup::TurnSetup;
use crate::tool::PermissionRequest;

/// The permission the offer is asked under (never judged by the config's rules).
const HANDOVER: &str = "handover";

/// Whether an external agent's failure says it is out of its usage for now.
pub(in crate::session) fn is_limit(why: &str) -> bool {
    let why = why.to_lowercase();
    [
        "429",
        "rate limit",
        "rate_limit",
        "usage limit",
        "quota",
        "too many requests",
    ]
    .iter()
    .any(|sign| why.contains(sign))
}

/// Offers the person Tandem's own loop after `why`; when taken, switches the session to
/// Tandem's default agent on its model and `setup` with it. False when not taken (or no
/// model of Tandem's is configured to go on with).
pub(in crate::session) async fn take(
    state: &mut SessionState,
    setup: &mut TurnSetup,
    services: &Services,
    why: &str,
) -> Result<bool, SessionError> {
    let Ok(model) = crate::provider::resolve(&state.config, None) else {
        return Ok(false);
    };
    let own = crate::agent::DEFAULT_AGENT;
    let from = setup.agent.name.clone();
    let title = format!(
        "The agent `{from}` stopped: {}\nGo on with this session on Tandem's own `{own}` agent \
         with {}? The conversation, the todo list and the changed files carry over.",
        why.lines().next().unwrap_or(why),
        model.full_id()
    );
    let question = PermissionRequest {
        session_id: state.info.id.clone(),
        call_id: format!("handover-{}", crate::id::ulid()),
        tool: HANDOVER.into(),
        kind: ToolKind::SwitchMode,
        permission: HANDOVER.into(),
        title,
        input: json!({"from": from, "to": own, "model": model.full_id()}),
        locations: Vec::new(),
        diffs: Vec::new(),
    };
    if !setup.port.request_permission(question).await.allows() {
        return Ok(false);
    }
    super::plan_approval::switch_mode(state, setup, services, own, model.full_id())?;
    setup.writer.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: crate::id::MessageId::new(),
        part_id: crate::id::PartId::new(),
        delta: format!(
            "\n(`{from}` hit its usage limit; this session goes on with Tandem's own `{own}` \
             agent on {}.)\n\n",
            model.full_id()
        ),
    });
    Ok(true)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_limit_is_told_by_its_usual_words() {
        assert!(super::is_limit("HTTP 429: Too Many Requests"));
        assert!(super::is_limit(
            "You've hit your usage limit. Resets at 5pm"
        ));
        assert!(!super::is_limit(
            "exited (exit status: 3) before it finished"
        ));
    }
}
