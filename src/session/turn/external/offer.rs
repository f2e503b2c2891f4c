//! The external agent's own choices in the editor: each time what it offers changes, the
//! session's commands and options are told again; its commands that Tandem's names took
//! (`/<agent>:<name>`) reach it under their own names.

use std::sync::Arc;

use crate::bus::Event;
use crate::id::SessionId;
use crate::remote::RemoteAgent;
use crate::session::core::state::SessionState;
use crate::session::core::writer::PartWriter;

/// Tells the editor the session's commands and options now, and again after each change of
/// what `remote` offers, for as long as it runs.
pub(super) fn watch(
    remote: &Arc<RemoteAgent>,
    state: &SessionState,
    writer: &PartWriter,
    session_id: &SessionId,
) {
    let mut changes = remote.offer().changes();
    changes.mark_changed();
    let settings = state.settings.clone();
    let mcp = Arc::downgrade(&state.mcp);
    let (writer, session_id) = (writer.clone(), session_id.clone());
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            let Some(mcp) = mcp.upgrade() else {
                break;
            };
            let commands = settings.commands_with(&mcp);
            writer.publish(Event::CommandsChanged {
                session_id: session_id.clone(),
                commands,
            });
            writer.publish(Event::OptionsChanged {
                session_id: session_id.clone(),
            });
        }
    });
}

/// `/<agent>:<name> …` (the agent's command Tandem offered under its own name) as the agent
/// knows it: `/<name> …`.
pub(super) fn own_command(text: String, agent: &str) -> String {
    match text.strip_prefix(&format!("/{agent}:")) {
        Some(rest) if !rest.starts_with(char::is_whitespace) && !rest.is_empty() => {
            format!("/{rest}")
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::own_command;

    #[test]
    fn the_agents_own_name_comes_back() {
        assert_eq!(
            own_command("/claude:compact now".into(), "claude"),
            "/compact now"
        );
        assert_eq!(own_command("/claude: hi".into(), "claude"), "/claude: hi");
        assert_eq!(own_command("/codex:x".into(), "claude"), "/codex:x");
    }
}
