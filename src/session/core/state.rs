//! What an open session keeps between turns, owned by its actor (its record, history, config
//! and settings), and the services all sessions share. What belongs to one turn (agent, model,
//! tools offered, delegation) lives in the turn's setup instead.

use std::sync::{Arc, Weak};

use super::children::ChildSessions;
use super::status::StatusCell;
use super::writer::PartWriter;
use crate::bus::Bus;
use crate::config::LoadedConfig;
use crate::mcp::McpSet;
use crate::message::{Message, SessionInfo, SessionRevert};
use crate::session::settings::Settings;
use crate::snapshot::Snapshots;
use crate::store::Store;
use crate::tool::Registry;

/// One open session's state.
pub(in crate::session) struct SessionState {
    pub info: SessionInfo,
    pub messages: Vec<Message>,
    pub config: Arc<LoadedConfig>,
    /// The mode and model the editor chose; read when a turn starts.
    pub settings: Arc<Settings>,
    /// The session's MCP servers (a subagent shares its caller's).
    pub mcp: Arc<McpSet>,
    /// The pending revert, and the messages it hides (out of `messages`).
    pub revert: Option<SessionRevert>,
    pub hidden: Vec<Message>,
    /// What the session is doing (shared with its handle).
    pub status: StatusCell,
    /// What its model has seen of each file, for the edit tools' checks.
    pub files: Arc<crate::tool::files::ledger::FileLedger>,
    /// Its commands in the background (shared with its handle, for `/jobs`).
    pub jobs: Arc<crate::tool::shell::jobs::JobTable>,
    /// Its subagents in the background (shared with its handle).
    pub background: Arc<super::background::BackgroundChildren>,
    /// What the agent remembers of its project and person, read when it opened (the system
    /// prompt stays byte-stable through the session).
    pub memory: Option<Arc<str>>,
    /// Its goal (shared with its handle, which pauses and clears it at once).
    pub goal: Arc<super::goal_cell::GoalCell>,
    /// The skills found for its project when it opened.
    pub skills: Arc<crate::extension::skill::Skills>,
    /// The hooks found for its project when it opened.
    pub hooks: Arc<crate::extension::hook::HookSet>,
    /// Whether its `SessionStart` hooks ran in this process.
    pub hooks_started: bool,
    /// Whether it told the person what an untrusted folder's files it left off.
    pub told_left_off: bool,
    /// The protected entries absent when the last turn ended, kept while background work
    /// goes on: what it creates unasked is set aside before the next turn.
    pub carried_watch: Option<super::root_watch::RootWatch>,
    /// The external ACP agent answering it, while its process runs.
    pub remote: Option<RemoteLink>,
}

/// An external ACP agent kept with its session between turns.
pub(in crate::session) struct RemoteLink {
    pub agent: String,
    pub remote: Arc<crate::remote::RemoteAgent>,
    pub session: String,
    /// What its session had cost before this turn (agents report the running total).
    pub cost: f64,
    /// Whether its process runs confined (started under a read-only caller).
    pub confined: bool,
    /// What it missed of the conversation, when it was started ahead of the first turn that
    /// must hand it over.
    pub behind: Option<Behind>,
}

impl RemoteLink {
    /// Whether it is `agent`'s running process, started as a turn under `read_only` needs.
    pub fn serves(&self, agent: &str, read_only: bool) -> bool {
        self.agent == agent && self.remote.alive() && self.confined == read_only
    }
}

/// Why an agent's new session does not know the conversation so far.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::session) enum Behind {
    /// Its earlier session could not be continued (its own words on it).
    Lost(String),
    /// It never had one here: the conversation was another agent's until now.
    Joined,
}

/// What every session works with: the store, the bus, the tools, and the runner of child
/// sessions (the manager) for delegation.
#[derive(Clone)]
pub(in crate::session) struct Services {
    pub store: Arc<Store>,
    pub bus: Arc<Bus>,
    /// Every project's snapshots, beside the database.
    pub snapshots: Arc<Snapshots>,
    pub tools: Registry,
    pub children: Weak<dyn ChildSessions>,
    /// The language servers every session of the process shares.
    pub lsp: Arc<crate::lsp::Lsp>,
}

impl Services {
    pub fn writer(&self) -> PartWriter {
        PartWriter::new(self.store.clone(), self.bus.clone())
    }
}
