//! Keeping an idle session's skills current: the skill folders are looked at every few
//! seconds, and when they changed the skills are read again and the editor is told the new
//! slash commands (each skill is one).

use std::time::Duration;

use crate::command::Commands;
use crate::session::core::state::{Services, SessionState};

/// How often an idle session looks at its skill folders.
pub(in crate::session) const EVERY: Duration = Duration::from_secs(2);

/// What the folders held when last looked at.
pub(in crate::session) struct SkillWatch {
    stamp: Vec<(std::path::PathBuf, Option<std::time::SystemTime>, u64)>,
}

impl SkillWatch {
    pub fn new(state: &SessionState) -> Self {
        Self {
            stamp: crate::extension::skill::stamp(&state.info.cwd, &state.info.extra_roots),
        }
    }

    /// Reads the skills again if their folders changed; tells the editor when the commands
    /// did.
    pub fn look(&mut self, state: &mut SessionState, services: &Services) {
        let stamp = crate::extension::skill::stamp(&state.info.cwd, &state.info.extra_roots);
        if stamp == self.stamp {
            return;
        }
        self.stamp = stamp;
        let skills =
            crate::extension::skill::Skills::load(&state.info.cwd, &state.info.extra_roots);
        if skills == *state.skills {
            return;
        }
        tracing::debug!(session = %state.info.id, "the skill folders changed");
        let folders = state.config.folder_paths(&state.info.cwd);
        let mut commands = Commands::load(&state.config.config, &folders);
        commands.add_skills(skills.named());
        state.skills = std::sync::Arc::new(skills);
        state.settings.set_commands(commands);
        let commands = state.settings.commands_with(&state.mcp);
        services.bus.publish(crate::bus::Event::CommandsChanged {
            session_id: state.info.id.clone(),
            commands,
        });
    }
}
