//! Agents: who answers a prompt, with which prompt, model, sampling, step budget and
//! permission rules. Built-ins, overridden field by field by config blocks and Markdown files.

mod builtin;
mod claude;
pub mod external;
pub mod family;
mod hidden;
mod load;
mod prompt;

use std::path::Path;

use indexmap::IndexMap;

pub use crate::config::AgentMode;
use crate::config::{AgentConfig, Config, Standing};
use crate::permission::{self, Rule};
pub use hidden::{
    COMPACTION_PROMPT, SUMMARY_CREATE, SUMMARY_TEMPLATE, SUMMARY_UPDATE, TITLE_PROMPT,
};
pub use prompt::{BUILD_SWITCH_REMINDER, PLAN_REMINDER, system_prompt};

/// The agent a session starts with when the config names none.
pub const DEFAULT_AGENT: &str = "build";

/// One agent, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentInfo {
    pub name: String,
    pub description: Option<String>,
    pub mode: AgentMode,
    /// Built into Tandem (possibly overridden).
    pub native: bool,
    pub hidden: bool,
    /// Replaces the built-in system prompt when set.
    pub prompt: Option<String>,
    /// `provider/model`, overriding the config's default model.
    pub model: Option<String>,
    /// The model variant (how hard it thinks) unless the person chose one.
    pub variant: Option<String>,
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    /// The most model calls one prompt may make; `None` is unbounded.
    pub steps: Option<u32>,
    /// The agent's built-in rules, applied after the defaults.
    pub permission: Vec<Rule>,
    /// Built-in rules the global `permission` block cannot loosen (plan mode's refusal to
    /// edit): applied after it, before the agent's own config.
    pub enforced: Vec<Rule>,
    /// Rules from the agent's own config, applied last (they win).
    pub own_permission: Vec<Rule>,
    pub color: Option<String>,
    /// How many `task` calls a child session of this agent may make (0 = none).
    pub task_budget: Option<u32>,
    /// Whether subagents may delegate to this agent.
    pub callable_by_subagents: bool,
    /// The agent's sandbox keys, over the config's.
    pub sandbox: Option<crate::config::SandboxConfig>,
    /// The external ACP agent that answers as this one, when it is not Tandem's own loop.
    pub acp: Option<crate::config::AcpAgentConfig>,
    /// Where it works as a subagent (`worktree`: a git worktree of its own).
    pub isolation: Option<crate::config::Isolation>,
}

impl Default for AgentInfo {
    fn default() -> Self {
        Self {
            name: String::new(),
            description: None,
            mode: AgentMode::All,
            native: false,
            hidden: false,
            prompt: None,
            model: None,
            variant: None,
            temperature: None,
            top_p: None,
            steps: None,
            permission: Vec::new(),
            enforced: Vec::new(),
            own_permission: Vec::new(),
            color: None,
            task_budget: None,
            callable_by_subagents: false,
            sandbox: None,
            acp: None,
            isolation: None,
        }
    }
}

impl AgentInfo {
    /// Applies a config block: every field it sets replaces this agent's; its permission
    /// rules are added after the agent's own.
    fn apply(&mut self, config: &AgentConfig) {
        macro_rules! set {
            ($($field:ident),*) => {$(if let Some(value) = &config.$field { self.$field = Some(value.clone()); })*};
        }
        set!(
            description,
            model,
            variant,
            prompt,
            temperature,
            top_p,
            steps,
            color,
            task_budget,
            sandbox,
            acp,
            isolation
        );
        if let Some(mode) = config.mode {
            self.mode = mode;
        }
        if let Some(hidden) = config.hidden {
            self.hidden = hidden;
        }
        if let Some(callable) = config.callable_by_subagents {
            self.callable_by_subagents = callable;
        }
        if let Some(rules) = &config.permission {
            self.own_permission.extend(permission::from_config(rules));
        }
    }

    /// All rules this agent works under: defaults, its built-in rules, the user's, the
    /// built-in rules the user's cannot loosen, its own.
    pub fn rules(&self, config: &Config) -> Vec<Rule> {
        let mut rules = permission::defaults();
        rules.extend(self.permission.iter().cloned());
        if let Some(user) = &config.permission {
            rules.extend(permission::from_config(user));
        }
        rules.extend(self.enforced.iter().cloned());
        rules.extend(self.own_permission.iter().cloned());
        rules
    }

    pub fn is_primary(&self) -> bool {
        matches!(self.mode, AgentMode::Primary | AgentMode::All)
    }

    pub fn is_subagent(&self) -> bool {
        matches!(self.mode, AgentMode::Subagent | AgentMode::All)
    }
}

/// An agent Tandem knows by name, named as the default (`tandem acp --agent codex`) and not
/// configured: its own command, in front of the editor; an unknown name is a problem.
fn add_well_known(
    config: &Config,
    agents: &mut IndexMap<String, AgentInfo>,
    problems: &mut Vec<String>,
) {
    let Some(name) = &config.default_agent else {
        return;
    };
    if agents.contains_key(name) {
        return;
    }
    match external::well_known(name) {
        Some(known) => {
            agents.insert(name.clone(), known);
        }
        None => problems.push(format!(
            "no agent is named `{name}` (the default agent): Tandem knows {} and those the \
             config defines; sessions start with `{DEFAULT_AGENT}`",
            external::NAMES.join(", ")
        )),
    }
}

/// Every agent available to a project, and what went wrong loading the others.
#[derive(Debug, Clone)]
pub struct Agents {
    agents: IndexMap<String, AgentInfo>,
    default: String,
    /// Bad agent files or blocks, each naming the file and field; the rest still load.
    pub problems: Vec<String>,
}

impl Agents {
    /// The built-ins with every override that applies to a session in a workspace, lowest
    /// first: the Claude Code plugins' agents, `opencode.json` blocks and `.opencode/agent/*.md` of each folder,
    /// `~/.config/tandem/agent/*.md`, `tandem.json` blocks, then each folder's
    /// `.tandem/agent/*.md`. `folders` are the workspace's, lowest precedence first (the project
    /// last); a folder's files give only what narrows unless it is trusted.
    pub fn load(config: &Config, folders: &[(&Path, &Standing)]) -> Self {
        let mut agents: IndexMap<String, AgentInfo> = builtin::agents()
            .into_iter()
            .map(|a| (a.name.clone(), a))
            .collect();
        let mut problems = Vec::new();
        let mut layers = Vec::new();
        // Claude Code plugins' agents, `<plugin>:<agent>`, below everything the person and
        // the project write.
        let paths: Vec<&Path> = folders.iter().map(|(f, _)| *f).collect();
        for plugin in crate::config::plugins::enabled(&paths) {
            for dir in plugin.agent_dirs() {
                layers.extend(claude::dir(
                    &dir,
                    &format!("{}:", plugin.name),
                    &mut problems,
                ));
            }
        }
        for (folder, standing) in folders {
            let trusted = standing.is_trusted();
            layers.extend(load::opencode_layers(folder, &mut problems, trusted));
        }
        layers.extend(load::markdown_dir(
            &crate::paths::config_dir().join("agent"),
            &mut problems,
            true,
        ));
        layers.extend(
            config
                .agent
                .iter()
                .map(|(name, block)| (name.clone(), block.clone())),
        );
        for (folder, standing) in folders {
            layers.extend(load::markdown_dir(
                &folder.join(".tandem/agent"),
                &mut problems,
                standing.is_trusted(),
            ));
        }
        for (name, block) in layers {
            if block.disable == Some(true) {
                agents.shift_remove(&name);
                continue;
            }
            agents
                .entry(name.clone())
                .or_insert_with(|| AgentInfo {
                    name: name.clone(),
                    ..AgentInfo::default()
                })
                .apply(&block);
        }
        add_well_known(config, &mut agents, &mut problems);
        for problem in &problems {
            tracing::warn!("{problem}");
        }
        let default = config
            .default_agent
            .clone()
            .filter(|name| {
                agents
                    .get(name)
                    .is_some_and(|a| a.is_primary() && !a.hidden)
            })
            .unwrap_or_else(|| DEFAULT_AGENT.to_owned());
        Self {
            agents,
            default,
            problems,
        }
    }

    pub fn get(&self, name: &str) -> Option<&AgentInfo> {
        self.agents.get(name)
    }

    /// The agent new sessions start with.
    pub fn default_agent(&self) -> AgentInfo {
        self.agents
            .get(&self.default)
            .cloned()
            .unwrap_or_else(|| builtin::agents().remove(0))
    }

    /// The agents a person can switch between: primary, not hidden.
    pub fn modes(&self) -> Vec<&AgentInfo> {
        self.agents
            .values()
            .filter(|a| a.is_primary() && !a.hidden)
            .collect()
    }

    /// The agents the `task` tool can run, sorted by name.
    pub fn subagents(&self) -> Vec<&AgentInfo> {
        let mut list: Vec<&AgentInfo> = self
            .agents
            .values()
            .filter(|a| a.is_subagent() && !a.hidden)
            .collect();
        list.sort_by(|a, b| a.name.cmp(&b.name));
        list
    }
}
