//! The external agent a session's mode runs, started ahead of its first prompt so that its
//! modes, options and commands are in the editor's selectors from the start; only where no
//! folder or plugin of the workspace waits for the person's trust (the agent would read them).

use std::sync::Arc;

use super::{Needs, link, servers_for_agent};
use crate::session::core::state::{Services, SessionState};

/// Starts the session's external agent and opens its session, unless it runs already or the
/// workspace's trust is still to be asked; a failure waits for the first prompt to be said.
pub(in crate::session) async fn warm(state: &mut SessionState, services: &Services) {
    let agent = state.settings.agent();
    let Some(spec) = agent.acp.clone() else {
        return;
    };
    if state.info.parent_id.is_some() || !trust_settled(state) {
        return;
    }
    let layers = state.settings.rules_for(&agent);
    let denies = |key: &str| layers.evaluate(key, "*", &[]) == crate::permission::Action::Deny;
    let needs = Needs {
        name: agent.name.clone(),
        cwd: state.info.cwd.clone(),
        sandbox: Arc::new(crate::session::turn::setup::sandbox_for(&agent, state)),
        writer: services.writer(),
        session_id: state.info.id.clone(),
        servers: servers_for_agent(state, denies),
    };
    match link(state, &needs, &spec).await {
        Ok(behind) => {
            if let Some(link) = &mut state.remote {
                link.behind = behind;
            }
        }
        Err(error) => {
            tracing::info!(%error, "the external agent did not start ahead of the first prompt")
        }
    }
}

/// Whether nothing about the workspace's folders and plugins waits for the person's answer.
fn trust_settled(state: &SessionState) -> bool {
    let folders: Vec<&std::path::Path> = std::iter::once(&state.info.cwd)
        .chain(&state.info.extra_roots)
        .map(|f| f.as_path())
        .collect();
    settled(&folders)
}

/// Whether none of `folders`, nor the Claude Code plugins they enable, waits for an answer.
fn settled(folders: &[&std::path::Path]) -> bool {
    folders
        .iter()
        .all(|folder| !crate::trust::assess(folder).needs_asking())
        && crate::config::plugins::enabled(folders)
            .iter()
            .all(|plugin| !crate::trust::plugin::assess(plugin).needs_asking())
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_agent_is_not_started_ahead_where_a_folder_waits_for_trust() {
        let plain = tempfile::tempdir().unwrap();
        assert!(super::settled(&[plain.path()]));
        // A cloned project whose hook would run a script: nothing starts before the question.
        let cloned = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(cloned.path().join(".claude")).unwrap();
        std::fs::write(
            cloned.path().join(".claude/settings.json"),
            r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "sh x.sh"}]}]}}"#,
        )
        .unwrap();
        assert!(!super::settled(&[cloned.path()]));
        assert!(!super::settled(&[plain.path(), cloned.path()]));
    }
}
