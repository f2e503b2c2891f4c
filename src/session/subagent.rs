//! Delegation: the session side of the `task` tool. Checks the `task` permission and the
//! nested-delegation budgets, runs the subagent in a child session (new or resumed), routes
//! its prompts to the editor through the caller, and cancels it with the caller.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::actor::SessionState;
use super::{SessionManager, StopReason};
use crate::agent::{AgentInfo, Agents};
use crate::bus::{Bus, Event};
use crate::id::SessionId;
use crate::message::PartBody;
use crate::permission::{self, Action, Rule};
use crate::store::Store;
use crate::tool::context::{PermissionRequest, PortError, TerminalExit, TerminalOutput};
use crate::tool::{
    ClientPort, PermissionCheck, PermissionDecision, SubagentCall, SubagentOutcome, SubagentPort,
    TerminalPort, ToolContext, ToolError,
};

/// One caller's view of delegation: who it is and what it may call.
pub(super) struct Delegation {
    manager: Weak<SessionManager>,
    caller: SessionId,
    /// Whether the caller is itself a subagent (its session has a parent).
    nested: bool,
    cwd: PathBuf,
    agent: AgentInfo,
    agents: Agents,
    rules: Vec<Rule>,
    model: Option<String>,
    port: Arc<dyn ClientPort>,
    store: Arc<Store>,
    bus: Arc<Bus>,
}

impl Delegation {
    pub fn new(state: &SessionState, port: Arc<dyn ClientPort>) -> Self {
        Self {
            manager: state.manager.clone(),
            caller: state.info.id.clone(),
            nested: state.info.parent_id.is_some(),
            cwd: state.info.cwd.clone(),
            agent: state.agent.clone(),
            agents: state.settings.agents.clone(),
            rules: state.settings.rules(),
            model: state.model.clone(),
            port,
            store: state.store.clone(),
            bus: state.bus.clone(),
        }
    }

    /// Whether the caller's rules let it delegate to `name` at all.
    fn may_call(&self, target: &AgentInfo) -> bool {
        permission::evaluate("task", &target.name, &[&self.rules]) != Action::Deny
            && (!self.nested || target.callable_by_subagents)
    }

    /// The rules a child running `target` adds: no todo lists or further delegation unless
    /// the target's own rules (or budget) say otherwise, and every denial the caller has.
    fn child_rules(&self, target: &AgentInfo) -> Vec<Rule> {
        let mentions = |key: &str| {
            target
                .permission
                .iter()
                .chain(&target.own_permission)
                .any(|r| r.permission == key)
        };
        let mut rules: Vec<Rule> = self
            .rules
            .iter()
            .filter(|r| r.action == Action::Deny)
            .cloned()
            .collect();
        for key in ["todowrite", "todoread"] {
            if !mentions(key) {
                rules.push(Rule::new(key, "*", Action::Deny));
            }
        }
        if !mentions("task") && target.task_budget.unwrap_or(0) == 0 {
            rules.push(Rule::new("task", "*", Action::Deny));
        }
        rules
    }

    /// Seed 004's checks for a subagent calling a subagent; counts the call.
    fn spend_budget(&self, target: &AgentInfo) -> Result<(), ToolError> {
        if !self.nested {
            return Ok(());
        }
        let budget = self.agent.task_budget.unwrap_or(0);
        if budget == 0 {
            return Err(ToolError(
                "Caller has no task budget configured. Set task_budget > 0 on the calling agent to enable nested delegation.".into(),
            ));
        }
        if !target.callable_by_subagents {
            return Err(ToolError(format!(
                "Target \"{}\" is not callable by subagents. Set callable_by_subagents: true on the target agent to enable.",
                target.name
            )));
        }
        let used = self.store.task_calls(&self.caller).map_err(store_error)?;
        if used >= budget {
            return Err(ToolError(format!(
                "Task budget exhausted ({used}/{budget} calls). Return control to caller to continue."
            )));
        }
        self.store
            .count_task_call(&self.caller)
            .map_err(store_error)?;
        Ok(())
    }

    async fn delegate(
        &self,
        ctx: &ToolContext,
        call: SubagentCall,
    ) -> Result<SubagentOutcome, ToolError> {
        let manager = self
            .manager
            .upgrade()
            .ok_or_else(|| ToolError("Tandem is shutting down.".into()))?;
        ctx.ask(PermissionCheck::new(
            "task",
            vec![call.agent.clone()],
            format!("Delegate to @{}: {}", call.agent, call.description),
        ))
        .await?;
        let target = self
            .agents
            .get(&call.agent)
            .filter(|a| a.is_subagent() && !a.hidden)
            .cloned()
            .ok_or_else(|| {
                let valid: Vec<String> = self
                    .agents
                    .subagents()
                    .iter()
                    .map(|a| a.name.clone())
                    .collect();
                ToolError(format!(
                    "Unknown agent type: {} is not a valid agent type. Valid agent types: {}.",
                    call.agent,
                    valid.join(", ")
                ))
            })?;
        let child = match &call.task_id {
            Some(id) => {
                let id = SessionId(id.clone());
                let owned = self
                    .store
                    .get_session(&id)
                    .map_err(store_error)?
                    .and_then(|s| s.parent_id);
                if owned.as_ref() != Some(&self.caller) {
                    return Err(ToolError(format!(
                        "Cannot resume session: not a child of caller session. Session \"{id}\" is not owned by this caller."
                    )));
                }
                self.spend_budget(&target)?;
                manager.open(&id).map_err(|e| ToolError(e.to_string()))?;
                id
            }
            None => {
                self.spend_budget(&target)?;
                let title = format!("{} (@{} subagent)", call.description, target.name);
                manager
                    .create_child(&self.cwd, &self.caller, &title)
                    .map_err(|e| ToolError(e.to_string()))?
                    .id
            }
        };
        let model = target.model.clone().or_else(|| self.model.clone());
        manager
            .handle(&child)
            .map_err(|e| ToolError(e.to_string()))?
            .settings
            .delegate_to(target.clone(), model, self.child_rules(&target));
        self.bus.publish(Event::SubagentStarted {
            parent_session: self.caller.clone(),
            parent_call_id: ctx.call_id.clone(),
            child_session: child.clone(),
            agent: target.name.clone(),
            description: call.description.clone(),
        });
        let port = Arc::new(Rerouted {
            inner: self.port.clone(),
            session_id: self.caller.clone(),
        });
        let guard = CancelChild {
            manager: manager.clone(),
            child: child.clone(),
            armed: true,
        };
        let text = vec![PartBody::Text {
            text: call.prompt,
            synthetic: false,
        }];
        let stop = run_child(&manager, &child, text, port, &ctx.cancel).await;
        drop(guard.disarm());
        match stop {
            Ok(StopReason::Cancelled) => Err(ToolError(
                "The subagent was cancelled before it finished.".into(),
            )),
            Ok(_) => Ok(SubagentOutcome {
                text: manager
                    .last_answer(&child)
                    .await
                    .map_err(|e| ToolError(e.to_string()))?,
                session_id: child.to_string(),
            }),
            Err(error) => Err(ToolError(format!("The subagent failed: {error}"))),
        }
    }
}

async fn run_child(
    manager: &SessionManager,
    child: &SessionId,
    text: Vec<PartBody>,
    port: Arc<dyn ClientPort>,
    cancel: &CancellationToken,
) -> Result<StopReason, super::SessionError> {
    let prompt = manager.prompt(child, text, port);
    tokio::pin!(prompt);
    tokio::select! {
        result = &mut prompt => result,
        _ = cancel.cancelled() => {
            manager.cancel(child);
            prompt.await
        }
    }
}

fn store_error(error: crate::store::StoreError) -> ToolError {
    ToolError(format!("The session store failed: {error}"))
}

/// Cancels the child if the caller's call is dropped (its turn was cancelled).
struct CancelChild {
    manager: Arc<SessionManager>,
    child: SessionId,
    armed: bool,
}

impl CancelChild {
    fn disarm(mut self) -> Self {
        self.armed = false;
        self
    }
}

impl Drop for CancelChild {
    fn drop(&mut self) {
        if self.armed {
            self.manager.cancel(&self.child);
        }
    }
}

impl SubagentPort for Delegation {
    fn available(&self) -> Vec<(String, String)> {
        self.agents
            .subagents()
            .into_iter()
            .filter(|a| self.may_call(a))
            .map(|a| (a.name.clone(), a.description.clone().unwrap_or_default()))
            .collect()
    }

    fn run<'a>(
        &'a self,
        ctx: &'a ToolContext,
        call: SubagentCall,
    ) -> BoxFuture<'a, Result<SubagentOutcome, ToolError>> {
        Box::pin(self.delegate(ctx, call))
    }
}

/// The caller's port, used by a child: questions and editor calls are made in the name of the
/// session the editor knows, and the child's tool call ids carry the child's session id.
struct Rerouted {
    inner: Arc<dyn ClientPort>,
    session_id: SessionId,
}

impl Rerouted {
    /// The session to speak in the name of: the child's own when the client follows children.
    fn session<'a>(&'a self, child: &'a SessionId) -> &'a SessionId {
        if self.inner.knows_subagents() {
            child
        } else {
            &self.session_id
        }
    }
}

impl ClientPort for Rerouted {
    fn knows_subagents(&self) -> bool {
        self.inner.knows_subagents()
    }

    fn request_permission(
        &self,
        mut request: PermissionRequest,
    ) -> BoxFuture<'_, PermissionDecision> {
        if self.inner.knows_subagents() {
            return self.inner.request_permission(request);
        }
        if !request.call_id.contains('/') {
            request.call_id = format!("{}/{}", request.session_id, request.call_id);
        }
        request.session_id = self.session_id.clone();
        self.inner.request_permission(request)
    }

    fn can_read_files(&self) -> bool {
        self.inner.can_read_files()
    }

    fn can_write_files(&self) -> bool {
        self.inner.can_write_files()
    }

    fn read_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a std::path::Path,
    ) -> BoxFuture<'a, Result<String, PortError>> {
        self.inner.read_text_file(self.session(session_id), path)
    }

    fn write_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a std::path::Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        self.inner
            .write_text_file(self.session(session_id), path, content)
    }
}

impl TerminalPort for Rerouted {
    fn can_run_terminals(&self) -> bool {
        self.inner.can_run_terminals()
    }

    fn create_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        command: &'a str,
        args: Vec<String>,
        cwd: &'a std::path::Path,
        output_limit: u64,
    ) -> BoxFuture<'a, Result<String, PortError>> {
        self.inner
            .create_terminal(self.session(session_id), command, args, cwd, output_limit)
    }

    fn terminal_output<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalOutput, PortError>> {
        self.inner.terminal_output(self.session(session_id), id)
    }

    fn wait_for_terminal_exit<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalExit, PortError>> {
        self.inner
            .wait_for_terminal_exit(self.session(session_id), id)
    }

    fn kill_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        self.inner.kill_terminal(self.session(session_id), id)
    }

    fn release_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        self.inner.release_terminal(self.session(session_id), id)
    }
}
