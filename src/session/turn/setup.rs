//! What one turn works with, settled when it starts and shared by its steps: the agent and
//! model that answer, the system prompt, the tools offered, the permission gate, delegation,
//! and the ports the tools talk through.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::agent;
use crate::agent::AgentInfo;
use crate::id::SessionId;
use crate::permission::Rule;
use crate::permission::keys;
use crate::provider;
use crate::provider::{ResolvedModel, RetryObserver, ToolSpec};
use crate::session::core::state::{Services, SessionState};
use crate::session::core::writer::PartWriter;
use crate::session::error::SessionError;
use crate::session::ports::permission::Gate;
use crate::session::ports::subagent::{Caller, Delegation};
use crate::session::ports::todos::Todos;
use crate::session::undo::snapshots::TurnSnapshots;
use crate::tool::{ClientPort, Registry, SubagentPort};

pub(in crate::session) struct TurnSetup {
    pub session_id: SessionId,
    pub cwd: PathBuf,
    /// The workspace's other roots, as the session had them when the turn began.
    pub extra_roots: Arc<[PathBuf]>,
    /// The agent answering this turn (the session's mode, or a command's choice).
    pub agent: AgentInfo,
    pub model: ResolvedModel,
    /// What each request carries for the model and the variant this turn uses.
    pub options: crate::provider::variants::RequestOptions,
    pub system: Arc<[String]>,
    /// The tools offered on every step but the last (which offers none).
    pub specs: Arc<[ToolSpec]>,
    /// The rules let web searches through without asking, so the provider's own search may
    /// be offered (where its model has one, `hosted_search`).
    pub search_unasked: bool,
    pub tools: Registry,
    pub port: Arc<dyn ClientPort>,
    pub gate: Arc<Gate>,
    pub delegation: Arc<Delegation>,
    pub todos: Arc<Todos>,
    pub writer: PartWriter,
    pub cancel: CancellationToken,
    /// The project's snapshots around this turn's file-changing calls.
    pub snapshots: TurnSnapshots,
    /// Turns the provider's retries into the session's `retry` status.
    pub retry: RetryObserver,
    /// The sandbox its commands run in (the agent's keys over the config's).
    pub sandbox: Arc<crate::sandbox::Policy>,
    pub files: Arc<crate::tool::files::ledger::FileLedger>,
    /// The session's background jobs.
    pub jobs: Arc<crate::tool::shell::jobs::JobTable>,
    /// The project's language servers and formatters, as this session's config has them.
    pub code: Arc<dyn crate::tool::ports::CodePort>,
    /// The session's hooks, run around this turn's calls and its end.
    pub hooks: Arc<crate::session::hooks::SessionHooks>,
    /// The protected entries absent when the turn began: what appears unasked after any of
    /// its steps (a background job writes when it will) is set aside.
    pub root_watch: crate::session::core::root_watch::RootWatch,
    /// The person's ceilings on money and time, and where this turn's costs are counted.
    pub limits: super::limits::TurnLimits,
    /// The models a fallback already left this turn.
    pub left_models: Vec<String>,
}

/// What the turn was asked to run with.
pub(in crate::session) struct TurnChoice {
    pub agent: AgentInfo,
    /// `provider/model`; the config's default when `None`.
    pub model: Option<String>,
    /// Rules the person's own words add for this turn.
    pub granted: Vec<Rule>,
}

/// The system prompt of a turn of Tandem's own loop: the agent's, the memory, the editor's.
fn system_for(state: &SessionState, agent: &AgentInfo, model: &ResolvedModel) -> Vec<String> {
    let mut system = agent::system_prompt(
        agent,
        (&state.info.cwd, &state.info.extra_roots),
        &model.full_id(),
        &state.config.config.instructions,
    );
    system.extend(state.memory.as_deref().map(str::to_owned));
    system.extend(state.settings.client_prompt());
    system
}

/// The turn's model. An external agent answers with its own: with none configured, Tandem's
/// stands in (the no-network demo) for what a turn's setup reads of one.
fn model_for(state: &SessionState, choice: &TurnChoice) -> Result<ResolvedModel, SessionError> {
    match provider::resolve(&state.config, choice.model.as_deref()) {
        Ok(model) => Ok(model),
        Err(_) if choice.agent.acp.is_some() => {
            Ok(provider::resolve(&state.config, Some("scripted/demo"))?)
        }
        Err(error) => Err(error.into()),
    }
}

/// The built-in tools, then the session's MCP servers' tools, and what the model is told of
/// those the rules offer.
fn offered_tools(
    state: &SessionState,
    builtin: &Registry,
    gate: &Gate,
    delegation: &Delegation,
) -> (Registry, Arc<[ToolSpec]>) {
    let mut tools = builtin.clone();
    for tool in state.mcp.tools(builtin.names()) {
        tools.register(tool);
    }
    let taken: Vec<String> = tools.names().map(str::to_owned).collect();
    let taken: Vec<&str> = taken.iter().map(String::as_str).collect();
    for tool in crate::extension::custom_tool::load(&state.config, &state.info.cwd, &taken) {
        tools.register(Arc::new(tool));
    }
    // The skills this agent's rules let it see; none, no tool.
    let visible: Vec<crate::extension::skill::Skill> = state
        .skills
        .skills
        .iter()
        .filter(|s| {
            crate::tool::PermissionGate::verdict(gate, keys::SKILL, &s.name)
                != crate::permission::Action::Deny
        })
        .cloned()
        .collect();
    if !visible.is_empty() {
        tools.register(Arc::new(crate::extension::skill::SkillTool::new(visible)));
    }
    // A search service configured (or a key in the environment): the model may search.
    if let Ok(search) = crate::tool::websearch::configured(&state.config.config) {
        tools.register(Arc::new(crate::tool::websearch::WebSearchTool::new(search)));
    }
    // `"lsp": false` withholds the tool that would only answer that no server runs.
    let lsp_off = matches!(
        state.config.config.lsp,
        Some(crate::config::Switchable::Enabled(false))
    );
    let specs = tools
        .specs(
            |tool| gate.offers(tool) && !(lsp_off && tool.name() == "lsp"),
            &delegation.available(),
        )
        .into();
    (tools, specs)
}

/// Whether the turn's web searches go through without asking (and search is not turned off),
/// so the provider may search on its own.
fn search_unasked(state: &SessionState, gate: &Gate) -> bool {
    let setting = state.config.config.websearch.as_ref();
    gate.allows_unseen(keys::WEBSEARCH) && setting.is_none_or(|w| w.enabled != Some(false))
}

/// The sandbox the turn's commands run in: the agent's keys over the config's, held inside
/// the caller's when this is a subagent's session, and read-only at the read-only level.
pub(in crate::session) fn sandbox_for(
    agent: &AgentInfo,
    state: &SessionState,
) -> crate::sandbox::Policy {
    let mut config =
        crate::sandbox::layered(agent.sandbox.as_ref(), state.config.config.sandbox.as_ref());
    if state.settings.approval().read_only() {
        config.mode = Some(crate::sandbox::SandboxMode::ReadOnly);
    }
    state
        .settings
        .bounded(crate::sandbox::Policy::for_workspace(
            Some(&config),
            &state.info.cwd,
            &state.info.extra_roots,
        ))
}

impl TurnSetup {
    /// Reads the MCP servers' tool lists again where they changed, before the next step.
    pub async fn refresh_tools(&mut self, state: &SessionState, builtin: &Registry) {
        if state.mcp.refresh().await {
            let (tools, specs) = offered_tools(state, builtin, &self.gate, &self.delegation);
            self.tools = tools;
            self.specs = specs;
        }
    }

    /// Whether this turn's requests to its model (now) offer the provider's own web search.
    pub fn hosted_search(&self, config: &crate::config::Config) -> bool {
        self.search_unasked
            && provider::hosted_search(
                &self.model,
                config.websearch.as_ref().and_then(|w| w.hosted),
            )
    }

    /// The key of the session's prompt cache, when the model's provider takes caching hints.
    pub fn cache_key(&self) -> Option<String> {
        self.model.cache.then(|| self.session_id.to_string())
    }

    pub fn new(
        state: &SessionState,
        services: &Services,
        choice: TurnChoice,
        port: Arc<dyn ClientPort>,
        cancel: CancellationToken,
    ) -> Result<Self, SessionError> {
        let model = model_for(state, &choice)?;
        let (limits, cancel) = super::limits::TurnLimits::start(state, &services.store, cancel)?;
        let variant = state.settings.variant_for(&choice.agent, &model);
        let options = model.options.request(variant.as_deref());
        let rules = state.settings.rules_for(&choice.agent);
        let hooks = Arc::new(crate::session::hooks::SessionHooks::new(
            state,
            services,
            cancel.clone(),
        ));
        let approval = state.settings.approval();
        let sandbox = Arc::new(sandbox_for(&choice.agent, state));
        let granted = (choice.granted, &rules);
        let gate = gate_for(state, services, granted, (&hooks, &sandbox), port.clone())?;
        let caller = Caller {
            session: &state.info,
            agent: &choice.agent,
            agents: &state.settings.agents,
            rules,
            model: choice.model,
            sandbox: (*sandbox).clone(),
            approval,
            background: state.background.clone(),
            status: state.status.clone(),
        };
        let delegation = Arc::new(Delegation::new(caller, port.clone(), services));
        // An external agent has tools and instructions of its own: none are gathered for it.
        let external = choice.agent.acp.is_some();
        let (tools, specs) = match external {
            true => (services.tools.clone(), Vec::new().into()),
            false => offered_tools(state, &services.tools, &gate, &delegation),
        };
        let search_unasked = search_unasked(state, &gate);
        let system = match external {
            true => Vec::new(),
            false => system_for(state, &choice.agent, &model),
        }
        .into();
        Ok(Self {
            session_id: state.info.id.clone(),
            cwd: state.info.cwd.clone(),
            extra_roots: state.info.extra_roots.clone().into(),
            agent: choice.agent,
            model,
            options,
            system,
            specs,
            search_unasked,
            tools,
            port,
            gate,
            delegation,
            todos: Arc::new(Todos {
                store: services.store.clone(),
                bus: services.bus.clone(),
            }),
            writer: services.writer(),
            cancel,
            retry: state.status.retry_observer(),
            sandbox: sandbox.clone(),
            files: state.files.clone(),
            jobs: state.jobs.clone(),
            code: code_for(state, services, sandbox),
            hooks,
            root_watch: crate::session::core::root_watch::RootWatch::take(&state.info.cwd),
            snapshots: snapshots_for(state, services),
            limits,
            left_models: Vec::new(),
        })
    }
}

/// The turn's permission gate: its rules and the prompt's grants, the approval level over
/// them (edits and commands the sandbox holds), and the `Notification` hooks told of each
/// question.
fn gate_for(
    state: &SessionState,
    services: &Services,
    (granted, rules): (Vec<crate::permission::Rule>, &crate::permission::Layers),
    (hooks, sandbox): (
        &Arc<crate::session::hooks::SessionHooks>,
        &crate::sandbox::Policy,
    ),
    port: Arc<dyn ClientPort>,
) -> Result<Arc<Gate>, SessionError> {
    let gate = Gate::new(
        rules.clone(),
        granted,
        services.store.clone(),
        (&state.info.cwd, &state.info.id.0),
        port,
    )?;
    let told = hooks.clone();
    let held = sandbox.mode != crate::sandbox::SandboxMode::Off
        && crate::sandbox::support().is_available();
    let gate = gate
        .notifying(Arc::new(move |message| told.notify(message)))
        .approving(state.settings.approval(), held);
    Ok(Arc::new(gate))
}

/// The workspace's language servers and formatters, as the session's config has them.
fn code_for(
    state: &SessionState,
    services: &Services,
    sandbox: Arc<crate::sandbox::Policy>,
) -> Arc<crate::lsp::SessionCode> {
    Arc::new(crate::lsp::SessionCode::new(
        services.lsp.clone(),
        (&state.info.cwd, &state.info.extra_roots),
        &state.config,
        sandbox,
    ))
}

/// The workspace's snapshots around the turn's file-changing calls (none when turned off).
fn snapshots_for(state: &SessionState, services: &Services) -> TurnSnapshots {
    let project = crate::session::undo::snapshots::workspace_of(state, &services.snapshots);
    TurnSnapshots::new(project)
}
