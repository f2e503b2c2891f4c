//! Delegation: the session side of the `task` tool. Checks the `task` permission and the
//! nested-delegation budgets, runs the subagent in a child session (new or resumed) through
//! `ChildSessions`, and cancels it with the caller. The child speaks in its own session's name
//! through the caller's port; how the editor shows it is the ACP edge's business.

mod background;
mod isolation;

pub(in crate::session) use background::report;

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::agent::{AgentInfo, Agents};
use crate::bus::{Bus, Event};
use crate::id::SessionId;
use crate::message::{PartBody, SessionInfo};
use crate::permission::keys;
use crate::permission::{Action, Layers, Rule};
use crate::session::core::background::BackgroundChildren;
use crate::session::core::children::ChildSessions;
use crate::session::core::state::Services;
use crate::session::core::status::StatusCell;
use crate::session::error::{SessionError, StopReason};
use crate::store::Store;
use crate::tool::{
    ClientPort, PermissionCheck, SubagentCall, SubagentOutcome, SubagentPort, ToolContext,
    ToolError,
};
use crate::worktree::Worktree;

/// One caller's view of delegation: who it is and what it may call.
pub(in crate::session) struct Delegation {
    children: Weak<dyn ChildSessions>,
    caller: SessionId,
    /// Whether the caller is itself a subagent (its session has a parent).
    nested: bool,
    cwd: PathBuf,
    agent: AgentInfo,
    agents: Agents,
    rules: Layers,
    model: Option<String>,
    sandbox: crate::sandbox::Policy,
    approval: crate::permission::approval::Approval,
    port: Arc<dyn ClientPort>,
    store: Arc<Store>,
    bus: Arc<Bus>,
    /// The caller's subagents in the background, and its status (a child that ends while the
    /// caller is idle is told to the person at once).
    background: Arc<BackgroundChildren>,
    status: StatusCell,
}

/// Who delegates, for one turn.
pub(in crate::session) struct Caller<'a> {
    pub session: &'a SessionInfo,
    pub agent: &'a AgentInfo,
    pub agents: &'a Agents,
    pub rules: Layers,
    pub model: Option<String>,
    /// The sandbox the caller's commands run in: its subagents' never run wider.
    pub sandbox: crate::sandbox::Policy,
    /// The caller's approval level, its subagents' too.
    pub approval: crate::permission::approval::Approval,
    pub background: Arc<BackgroundChildren>,
    pub status: StatusCell,
}

impl Delegation {
    pub fn new(caller: Caller<'_>, port: Arc<dyn ClientPort>, services: &Services) -> Self {
        Self {
            children: services.children.clone(),
            caller: caller.session.id.clone(),
            nested: caller.session.parent_id.is_some(),
            cwd: caller.session.cwd.clone(),
            agent: caller.agent.clone(),
            agents: caller.agents.clone(),
            rules: caller.rules,
            model: caller.model,
            sandbox: caller.sandbox,
            approval: caller.approval,
            port,
            store: services.store.clone(),
            bus: services.bus.clone(),
            background: caller.background,
            status: caller.status,
        }
    }

    /// The rule layers that bound a child started by this call: every caller's, and the
    /// loaded skills' `allowed-tools` while the caller follows them.
    fn callers_of_child(&self, ctx: &ToolContext) -> Vec<Vec<Rule>> {
        let mut callers = self.rules.child(Vec::new()).callers;
        callers.extend(ctx.permissions.narrowed_layer());
        callers
    }

    /// Whether the caller's rules let it delegate to `name` at all.
    fn may_call(&self, target: &AgentInfo) -> bool {
        self.rules.evaluate(keys::TASK, &target.name, &[]) != Action::Deny
            && (!self.nested || target.callable_by_subagents)
    }

    /// The rules a child running `target` adds to its agent's: no todo lists or further
    /// delegation unless the target's own rules (or budget) say otherwise. The caller's rules
    /// bound the child's as a layer of their own ([`Layers::child`]).
    fn child_rules(&self, target: &AgentInfo) -> Vec<Rule> {
        let mentions = |key: &str| {
            target
                .permission
                .iter()
                .chain(&target.own_permission)
                .any(|r| r.permission == key)
        };
        let mut rules = Vec::new();
        for key in [keys::TODOWRITE, keys::TODOREAD, keys::GOAL] {
            if !mentions(key) {
                rules.push(Rule::new(key, "*", Action::Deny));
            }
        }
        if !mentions(keys::TASK) && target.task_budget.unwrap_or(0) == 0 {
            rules.push(Rule::new(keys::TASK, "*", Action::Deny));
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
            return Err(ToolError::failed(
                "Caller has no task budget configured. Set task_budget > 0 on the calling agent to enable nested delegation.",
            ));
        }
        if !target.callable_by_subagents {
            return Err(ToolError::failed(format!(
                "Target \"{}\" is not callable by subagents. Set callable_by_subagents: true on the target agent to enable.",
                target.name
            )));
        }
        let used = self.store.task_calls(&self.caller).map_err(store_error)?;
        if used >= budget {
            return Err(ToolError::failed(format!(
                "Task budget exhausted ({used}/{budget} calls). Return control to caller to continue."
            )));
        }
        self.store
            .count_task_call(&self.caller)
            .map_err(store_error)?;
        Ok(())
    }

    /// The subagent `call` names, if the caller may use it.
    fn target(&self, call: &SubagentCall) -> Result<AgentInfo, ToolError> {
        self.agents
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
                ToolError::failed(format!(
                    "Unknown agent type: {} is not a valid agent type. Valid agent types: {}.",
                    call.agent,
                    valid.join(", ")
                ))
            })
    }

    /// The child session the call runs in: the one `task_id` names (only the caller's own),
    /// or a new one.
    fn child_for(
        &self,
        children: &dyn ChildSessions,
        (call, cwd): (&SubagentCall, &std::path::Path),
        target: &AgentInfo,
    ) -> Result<SessionId, ToolError> {
        match &call.task_id {
            Some(id) if self.background.get(id).is_some_and(|c| c.end().is_none()) => {
                Err(ToolError::failed(format!(
                    "The subagent {id} is still running in the background: task_output reads \
                     its progress, task_cancel stops it. Resume it once it has ended."
                )))
            }
            Some(id) => {
                let id = SessionId(id.clone());
                let owner = self
                    .store
                    .get_session(&id)
                    .map_err(store_error)?
                    .and_then(|s| s.parent_id);
                if owner.as_ref() != Some(&self.caller) {
                    return Err(ToolError::failed(format!(
                        "Cannot resume session: not a child of caller session. Session \"{id}\" is not owned by this caller."
                    )));
                }
                self.spend_budget(target)?;
                children.open_child(&id).map_err(session_error)?;
                Ok(id)
            }
            None => {
                self.spend_budget(target)?;
                let title = format!("{} (@{} subagent)", call.description, target.name);
                children
                    .create_child(cwd, &self.caller, &title)
                    .map_err(session_error)
            }
        }
    }

    async fn delegate(
        &self,
        ctx: &ToolContext,
        call: SubagentCall,
    ) -> Result<SubagentOutcome, ToolError> {
        let children = self
            .children
            .upgrade()
            .ok_or_else(|| ToolError::failed("Tandem is shutting down."))?;
        ctx.ask(PermissionCheck::new(
            keys::TASK,
            vec![call.agent.clone()],
            format!("Delegate to @{}: {}", call.agent, call.description),
        ))
        .await?;
        let target = self.target(&call)?;
        // Checked and allowed: the call runs from here, and creating its child is part of the
        // work. Its running row is queued first, so the child's session commits it along
        // (with 100 task calls, committing them one by one cost ~10% of the wall time).
        ctx.started();
        let (child, worktree) = self
            .child_in_place(children.as_ref(), &call, &target)
            .await?;
        let model = target.model.clone().or_else(|| self.model.clone());
        children
            .assign(
                &child,
                target.clone(),
                model,
                self.child_rules(&target),
                (
                    self.callers_of_child(ctx),
                    self.sandbox.clone(),
                    self.approval,
                ),
            )
            .map_err(session_error)?;
        self.bus.publish(Event::SubagentStarted {
            parent_session: self.caller.clone(),
            parent_call_id: ctx.call_id.clone(),
            child_session: child.clone(),
            agent: target.name.clone(),
            description: call.description.clone(),
        });
        let text = vec![PartBody::Text {
            text: call.prompt.clone(),
            synthetic: false,
        }];
        if call.background {
            let started = (child, text, worktree);
            return Ok(self.start_in_background(ctx, children, started, (&target, &call)));
        }
        self.run_to_end(ctx, children, (child, text, worktree))
            .await
    }

    /// Runs the child's turn while the caller waits, then merges its worktree if it has one:
    /// its final message.
    async fn run_to_end(
        &self,
        ctx: &ToolContext,
        children: Arc<dyn ChildSessions>,
        (child, text, worktree): (SessionId, Vec<PartBody>, Option<Worktree>),
    ) -> Result<SubagentOutcome, ToolError> {
        let guard = CancelChild {
            children: children.clone(),
            child: child.clone(),
            armed: true,
        };
        let stop = run_child(
            children.as_ref(),
            &child,
            text,
            self.port.clone(),
            &ctx.cancel,
        )
        .await;
        drop(guard.disarm());
        let mut ended = end_jobs(children.as_ref(), &child);
        let mut diffs = Vec::new();
        if let Some(worktree) = &worktree {
            let (note, merged) = isolation::merge_back(ctx, worktree).await;
            ended.push_str(&note);
            diffs = merged;
        }
        match stop {
            Ok(StopReason::Cancelled) => Err(ToolError::failed(
                "The subagent was cancelled before it finished.",
            )),
            Ok(_) => {
                let answer = children.last_answer(&child).await.map_err(session_error)?;
                Ok(SubagentOutcome {
                    text: answer.text + &ended,
                    session_id: child.to_string(),
                    cost: answer.cost,
                    background: false,
                    diffs,
                })
            }
            Err(error) => Err(ToolError::failed(format!("The subagent failed: {error}"))),
        }
    }
}

/// Ends a subagent's background jobs with its task (nobody could read or end them after); what
/// the model is told of them.
fn end_jobs(children: &dyn ChildSessions, child: &SessionId) -> String {
    match children.end_jobs(child).as_slice() {
        [] => String::new(),
        jobs => format!(
            "\n\n(The subagent's background jobs ended with its task: {}.)",
            jobs.join(", ")
        ),
    }
}

async fn run_child(
    children: &dyn ChildSessions,
    child: &SessionId,
    text: Vec<PartBody>,
    port: Arc<dyn ClientPort>,
    cancel: &CancellationToken,
) -> Result<StopReason, SessionError> {
    let prompt = children.prompt(child, text, port);
    tokio::pin!(prompt);
    tokio::select! {
        result = &mut prompt => result,
        _ = cancel.cancelled() => {
            children.cancel(child);
            prompt.await
        }
    }
}

fn store_error(error: crate::store::StoreError) -> ToolError {
    ToolError::Store(error)
}

fn session_error(error: SessionError) -> ToolError {
    ToolError::failed(error.to_string())
}

/// Cancels the child if the caller's call is dropped (its turn was cancelled).
struct CancelChild {
    children: Arc<dyn ChildSessions>,
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
            self.children.cancel(&self.child);
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

    fn progress<'a>(
        &'a self,
        id: &'a str,
        wait: std::time::Duration,
    ) -> BoxFuture<'a, Result<String, ToolError>> {
        Box::pin(self.background_progress(id, wait))
    }

    fn stop(&self, id: &str) -> Result<String, ToolError> {
        self.stop_background(id)
    }
}
