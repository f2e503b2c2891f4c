//! The external agent that answers a session, as the editor's choices see it: what it offers
//! now (its modes, options and slash commands) and the way to set them; nothing while no
//! process of it runs.

use std::sync::{Arc, Mutex, Weak};

use crate::bus::CommandView;
use crate::remote::{AgentOffer, OfferedOption, OptionValue, RemoteAgent};
use crate::session::error::SessionError;

/// The agent's choices beside Tandem's own, for a session whose mode is that agent.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalChoices {
    /// The agent's name (its options are shown as `<agent>:<option>`).
    pub agent: String,
    pub options: Vec<OfferedOption>,
}

struct Linked {
    agent: String,
    remote: Weak<RemoteAgent>,
    session: String,
}

#[derive(Default)]
pub(in crate::session) struct Offered(Mutex<Option<Linked>>);

impl Offered {
    /// The session's turns now go to `remote`'s session `session`.
    pub fn link(&self, agent: &str, remote: &Arc<RemoteAgent>, session: &str) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Linked {
            agent: agent.to_owned(),
            remote: Arc::downgrade(remote),
            session: session.to_owned(),
        });
    }

    /// The running agent `agent` and its session, if that is the one linked.
    fn linked(&self, agent: &str) -> Option<(Arc<RemoteAgent>, String)> {
        let linked = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let linked = linked.as_ref().filter(|l| l.agent == agent)?;
        let remote = linked.remote.upgrade().filter(|r| r.alive())?;
        Some((remote, linked.session.clone()))
    }

    /// What `agent` offers now, when it runs for this session.
    pub fn offer_of(&self, agent: &str) -> Option<AgentOffer> {
        self.linked(agent).map(|(remote, _)| remote.offer().get())
    }

    /// Sets `agent`'s option `id` to `value`.
    pub async fn choose(
        &self,
        agent: &str,
        id: &str,
        value: OptionValue,
    ) -> Result<(), SessionError> {
        let (remote, session) = self.linked(agent).ok_or_else(|| {
            SessionError::Agent(format!(
                "the agent `{agent}` is not running for this session now; its options come \
                 back when it starts again (at the next prompt)"
            ))
        })?;
        remote
            .choose(&session, id, value)
            .await
            .map_err(SessionError::Agent)
    }
}

/// The session's slash commands with the agent's added: one whose name Tandem's own commands
/// already take is offered as `<agent>:<name>`.
pub(in crate::session) fn with_agent_commands(
    mut commands: Vec<CommandView>,
    agent: &str,
    theirs: &[CommandView],
) -> Vec<CommandView> {
    let taken: Vec<String> = commands.iter().map(|c| c.name.clone()).collect();
    for command in theirs {
        let mut command = command.clone();
        if taken.contains(&command.name) {
            command.name = format!("{agent}:{}", command.name);
        }
        commands.push(command);
    }
    commands
}
