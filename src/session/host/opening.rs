//! The state an actor starts with when a session opens: its messages (those a revert hides set
//! aside), its agents, skills, hooks and slash commands as the config and its files say.

use std::sync::Arc;

use crate::agent::Agents;
use crate::command::Commands;
use crate::config::LoadedConfig;
use crate::mcp::McpSet;
use crate::message::{Message, SessionInfo, SessionRevert};
use crate::session::core::state::SessionState;
use crate::session::core::status::StatusCell;
use crate::session::settings::Settings;

/// The state an actor starts with: the session's messages (those a revert hides set aside),
/// its agents and slash commands as the config and its files say.
pub(super) fn open_state(
    info: SessionInfo,
    mut messages: Vec<Message>,
    config: Arc<LoadedConfig>,
    mcp: Arc<McpSet>,
    revert: Option<SessionRevert>,
    (status, goal): (StatusCell, Arc<crate::session::core::goal_cell::GoalCell>),
) -> SessionState {
    let hidden = match &revert {
        Some(revert) => crate::session::undo::revert::split(&mut messages, revert),
        None => Vec::new(),
    };
    let folders = config.folders(&info.cwd);
    let agents = Agents::load(&config.config, &folders);
    let skills = Arc::new(crate::extension::skill::Skills::load(
        &info.cwd,
        &info.extra_roots,
    ));
    let info_cwd = info.cwd.clone();
    let memory = crate::memory::for_prompt(&info.cwd).map(Into::into);
    let info_parent = info.parent_id.clone();
    let hooks = Arc::new(crate::extension::hook::HookSet::load(
        &info_cwd,
        &folders,
        &config.plugins,
    ));
    let mut slash_commands = Commands::load(&config.config, &config.folder_paths(&info.cwd));
    slash_commands.add_skills(skills.named());
    let limit = config.config.background_jobs;
    let jobs = Arc::new(crate::tool::shell::jobs::JobTable::new(
        limit.unwrap_or(crate::tool::shell::jobs::DEFAULT_LIMIT),
    ));
    SessionState {
        settings: Arc::new(Settings::new(config.clone(), agents, slash_commands)),
        info,
        messages,
        config,
        mcp,
        revert,
        hidden,
        status,
        files: Default::default(),
        jobs,
        background: Default::default(),
        memory,
        goal,
        skills,
        hooks,
        hooks_started: false,
        told_left_off: info_parent.is_some(),
        carried_watch: None,
        remote: None,
    }
}
