//! The session's permission gate: evaluates a tool's check against the defaults, the config,
//! the agent and remembered answers; asks the person through the client port when a rule
//! says ask; remembers "always" answers per project; a rejection rejects the turn's later asks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;

use super::SessionError;
use super::actor::SessionState;
use crate::id::now_ms;
use crate::permission::{self, Action, Rule};
use crate::store::Store;
use crate::tool::{
    ClientPort, PermissionCheck, PermissionDecision, PermissionGate, PermissionRequest,
    ToolContext, ToolError,
};

const REJECTED: &str = "The user rejected permission to use this specific tool call. Do not retry it \
unchanged; continue without it, or ask the user how to proceed.";

pub(super) struct Gate {
    rules: Vec<Rule>,
    approvals: Mutex<Vec<Rule>>,
    store: Arc<Store>,
    project: String,
    port: Arc<dyn ClientPort>,
    /// Set by a rejection: the turn's later asks are rejected without asking again.
    rejected: AtomicBool,
}

impl Gate {
    /// The gate for one turn of `state`'s session, answering through `port`.
    /// The gate for one turn; `granted` are rules the person's own words add for this turn
    /// (an @mention of a subagent allows delegating to it).
    pub fn new(
        state: &SessionState,
        port: Arc<dyn ClientPort>,
        granted: Vec<Rule>,
    ) -> Result<Self, SessionError> {
        let mut rules = state.settings.rules();
        // Truncated tool output is saved here for the model to read back (after the defaults,
        // before the user's rules, so the user can still deny it).
        let saved_output = crate::paths::data_dir().join("tool-output");
        let defaults = crate::permission::defaults().len();
        rules.insert(
            defaults,
            Rule::new(
                "external_directory",
                &format!("{}/*", saved_output.display()),
                Action::Allow,
            ),
        );
        rules.extend(granted);
        let project = state.info.cwd.display().to_string();
        let approvals = state.store.approvals(&project)?;
        Ok(Self {
            rules,
            approvals: Mutex::new(approvals),
            store: state.store.clone(),
            project,
            port,
            rejected: AtomicBool::new(false),
        })
    }

    fn approvals(&self) -> Vec<Rule> {
        self.approvals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether the model is offered `tool` at all (not when every use is denied).
    pub fn offers(&self, tool: &str) -> bool {
        let approvals = self.approvals();
        !permission::is_disabled(permission::key_for_tool(tool), &[&self.rules, &approvals])
    }

    fn remember(&self, permission: &str, patterns: &[String], action: Action) {
        let now = now_ms();
        let mut approvals = self.approvals.lock().unwrap_or_else(|p| p.into_inner());
        for pattern in patterns {
            let rule = Rule::new(permission, pattern, action);
            if let Err(error) = self.store.put_approval(&self.project, &rule, now) {
                tracing::warn!(%error, "cannot store a permission answer; it holds for this process only");
            }
            approvals.push(rule);
        }
    }

    async fn decide(&self, ctx: &ToolContext, check: PermissionCheck) -> Result<(), ToolError> {
        let approvals = self.approvals();
        let mut needs_asking = false;
        for pattern in &check.patterns {
            match permission::evaluate(&check.permission, pattern, &[&self.rules, &approvals]) {
                Action::Deny => {
                    return Err(ToolError(format!(
                        "The user's permission rules deny {} `{pattern}`. Do not retry it; continue without it or ask the user.",
                        check.permission
                    )));
                }
                Action::Ask => needs_asking = true,
                Action::Allow => {}
            }
        }
        if !needs_asking {
            return Ok(());
        }
        if self.rejected.load(Ordering::SeqCst) {
            return Err(ToolError(REJECTED.into()));
        }
        let request = PermissionRequest {
            session_id: ctx.session_id.clone(),
            call_id: ctx.call_id.clone(),
            tool: ctx.tool.clone(),
            permission: check.permission.clone(),
            title: check.title,
            input: ctx.input.clone(),
            locations: check.locations,
            diffs: check.diffs,
        };
        match self.port.request_permission(request).await {
            PermissionDecision::AllowOnce => Ok(()),
            PermissionDecision::AllowAlways => {
                self.remember(&check.permission, &check.always, Action::Allow);
                Ok(())
            }
            PermissionDecision::RejectAlways => {
                self.remember(&check.permission, &check.always, Action::Deny);
                self.rejected.store(true, Ordering::SeqCst);
                Err(ToolError(REJECTED.into()))
            }
            PermissionDecision::RejectOnce | PermissionDecision::Cancelled => {
                self.rejected.store(true, Ordering::SeqCst);
                Err(ToolError(REJECTED.into()))
            }
        }
    }
}

impl PermissionGate for Gate {
    fn check<'a>(
        &'a self,
        ctx: &'a ToolContext,
        check: PermissionCheck,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(self.decide(ctx, check))
    }
}
