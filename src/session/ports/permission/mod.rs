//! The session's permission gate for one turn: evaluates a tool's check against the rules and
//! remembered answers, asks the person through the client port when a rule says ask, remembers
//! "always" answers per project, and after a rejection rejects the turn's later asks.

use crate::permission::approval::Approval;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;

use crate::id::now_ms;
use crate::permission::keys;
use crate::permission::{Action, Layers, Rule, protected};
use crate::store::{Store, StoreError};
use crate::tool::{
    ClientPort, Need, PermissionCheck, PermissionDecision, PermissionGate, PermissionRequest, Tool,
    ToolContext, ToolError,
};

/// What is told when the person is asked: the session's `Notification` hooks, given by the
/// turn (the gate knows nothing of hooks).
pub type Notify = Arc<dyn Fn(String) + Send + Sync>;

pub(in crate::session) struct Gate {
    layers: Layers,
    approvals: Mutex<Vec<Rule>>,
    store: Arc<Store>,
    project: String,
    port: Arc<dyn ClientPort>,
    /// Set by a rejection: the turn's later asks are rejected without asking again.
    rejected: AtomicBool,
    /// Protected files the person allowed writing this turn (the steering guard keeps them).
    approved_protected: Mutex<Vec<String>>,
    /// The loaded skills' `allowed-tools`: a need none of them allows is refused.
    narrowed: Mutex<Vec<super::narrowing::Narrowing>>,
    /// Told each time the person is asked (the session's `Notification` hooks).
    notify: Option<Notify>,
    /// The session's approval level, and whether its commands run in a sandbox that holds them.
    approval: (Approval, bool),
}

impl Gate {
    /// The gate for one turn in `project` under `layers`; `granted` are rules the person's own
    /// words add for this turn (an @mention of a subagent allows delegating to it).
    pub fn new(
        mut layers: Layers,
        granted: Vec<Rule>,
        store: Arc<Store>,
        (project, session): (&Path, &str),
        port: Arc<dyn ClientPort>,
    ) -> Result<Self, StoreError> {
        // This session's truncated tool outputs are saved here for the model to read back
        // unasked (after the defaults, before the user's rules, so the user can still deny it);
        // another session's folder is an ordinary outside path.
        if let Some(saved_output) = crate::tool::saved::dir(project, session) {
            layers.insert_after_defaults(Rule::new(
                keys::EXTERNAL_DIRECTORY,
                &format!("{}/*", saved_output.display()),
                Action::Allow,
            ));
        }
        // The sessions' plans (plan mode's `exit_plan` keeps them there) are read unasked by
        // later turns and by subagents.
        layers.insert_after_defaults(Rule::new(
            keys::EXTERNAL_DIRECTORY,
            &format!("{}/*", crate::tool::plan::plans_dir().display()),
            Action::Allow,
        ));
        layers.own.extend(granted);
        let project = project.display().to_string();
        let approvals = store.approvals(&project)?;
        Ok(Self {
            layers,
            approvals: Mutex::new(approvals),
            store,
            project,
            port,
            rejected: AtomicBool::new(false),
            approved_protected: Mutex::default(),
            narrowed: Mutex::default(),
            notify: None,
            approval: (Approval::Ask, false),
        })
    }

    /// Calls `notify` with what the person is asked, whenever they are.
    pub fn notifying(mut self, notify: Notify) -> Self {
        self.notify = Some(notify);
        self
    }

    /// Settles the rules' questions at `approval`'s level; `sandboxed`: the session's commands
    /// run in a sandbox that holds them.
    pub fn approving(mut self, approval: Approval, sandboxed: bool) -> Self {
        self.approval = (approval, sandboxed);
        self
    }

    fn approvals(&self) -> std::sync::MutexGuard<'_, Vec<Rule>> {
        self.approvals.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The protected files the person allowed writing this turn.
    pub fn approved_protected(&self) -> Vec<String> {
        self.approved_protected
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether the model is offered `tool` at all (not when every use is denied).
    pub fn offers(&self, tool: &dyn Tool) -> bool {
        let approvals = self.approvals();
        !tool
            .permission_keys()
            .iter()
            .any(|key| self.layers.is_disabled(key, &approvals))
    }

    /// Whether every use of `permission` goes through without asking, whatever its input:
    /// what lets the provider do it on Tandem's behalf (its own web search), unseen.
    pub fn allows_unseen(&self, permission: &str) -> bool {
        let approvals = self.approvals();
        let (action, _) = self.layers.judge(
            permission,
            &[],
            crate::permission::Sight::Partial,
            &approvals,
        );
        let (level, sandboxed) = self.approval;
        level.settle(permission, action, sandboxed) == Action::Allow
    }

    fn remember(&self, permission: &str, patterns: &[String], action: Action) {
        let now = now_ms();
        let mut approvals = self.approvals();
        for pattern in patterns {
            let rule = Rule::new(permission, pattern, action);
            if let Err(error) = self.store.put_approval(&self.project, &rule, now) {
                tracing::warn!(%error, "cannot store a permission answer; it holds for this process only");
            }
            approvals.push(rule);
        }
    }

    /// Judges each need: a deny ends the check; returns the needs to ask about (indices) and the
    /// permissions asked about because they edit a protected file (its note added to the title:
    /// asked even under `edit: allow` or an earlier "always"; a deny still denies).
    /// Why the loaded skills keep `need` out, if they do (each skill allows its list).
    fn narrowing_refuses(&self, need: &Need) -> Option<ToolError> {
        let narrowed = self.narrowed.lock().unwrap_or_else(|p| p.into_inner());
        if narrowed.is_empty() {
            return None;
        }
        let pattern = need
            .patterns
            .iter()
            .find(|p| narrowed.iter().all(|n| n.refuses(&need.permission, p)))?;
        let skills: Vec<&str> = narrowed.iter().map(|n| n.skill.as_str()).collect();
        Some(ToolError::failed(format!(
            "While following the skill {}, this turn may use only the tools its allowed-tools list: {} `{pattern}` is not among them.",
            skills.join(", "),
            need.permission
        )))
    }

    /// `preapproved`: a hook allowed the call (or the person allowed it when a hook asked),
    /// which answers the rules' questions but never a deny or a protected file's question.
    fn sort_needs(
        &self,
        check: &mut PermissionCheck,
        preapproved: bool,
    ) -> Result<(Vec<usize>, Vec<String>), ToolError> {
        let (mut asking, mut protected) = (Vec::new(), Vec::new());
        let approvals = self.approvals();
        for (index, need) in check.needs.iter().enumerate() {
            let (action, pattern) =
                self.layers
                    .judge(&need.permission, &need.patterns, need.sight, &approvals);
            let (level, sandboxed) = self.approval;
            let mut action = level.settle(&need.permission, action, sandboxed);
            if let Some(note) = protected_note(need, Path::new(&self.project))
                && action != Action::Deny
            {
                action = Action::Ask;
                protected.push(need.permission.clone());
                if !check.title.contains(&note) {
                    check.title = format!("{}\n{note}", check.title);
                }
            }
            if action != Action::Deny
                && let Some(refused) = self.narrowing_refuses(need)
            {
                return Err(refused);
            }
            match action {
                Action::Deny => {
                    return Err(ToolError::Denied {
                        permission: need.permission.clone(),
                        pattern: pattern.unwrap_or_else(|| "what it cannot see".into()),
                    });
                }
                Action::Ask if preapproved && !protected.contains(&need.permission) => {}
                Action::Ask => asking.push(index),
                Action::Allow => {}
            }
        }
        Ok((asking, protected))
    }

    async fn decide(
        &self,
        ctx: &ToolContext,
        check: PermissionCheck,
        preapproved: bool,
    ) -> Result<(), ToolError> {
        let mut check = check;
        let (asking, protected) = self.sort_needs(&mut check, preapproved)?;
        let asking: Vec<&Need> = asking.iter().map(|i| &check.needs[*i]).collect();
        let Some(first) = asking.first() else {
            return Ok(());
        };
        let rejected = || ToolError::Rejected {
            title: check.title.clone(),
        };
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        if self.rejected.load(Ordering::SeqCst) {
            return Err(rejected());
        }
        let request = PermissionRequest {
            session_id: ctx.session_id.clone(),
            call_id: ctx.call_id.clone(),
            tool: ctx.tool.clone(),
            kind: ctx.kind,
            permission: first.permission.clone(),
            title: check.title.clone(),
            input: ctx.input.clone(),
            locations: check.locations.clone(),
            diffs: check.diffs.clone(),
        };
        if let Some(notify) = &self.notify {
            notify(format!("Tandem needs your permission: {}", check.title));
        }
        let decision = self.port.request_permission(request).await;
        let answer = match decision {
            PermissionDecision::AllowAlways => Some(Action::Allow),
            PermissionDecision::RejectAlways => Some(Action::Deny),
            _ => None,
        };
        if let Some(action) = answer {
            // "Always" never covers a protected file: the next edit of it asks again.
            for need in asking.iter().filter(|n| !protected.contains(&n.permission)) {
                self.remember(&need.permission, &need.always, action);
            }
        }
        // The person's "always" holds, but an answer that arrives after a cancel does not let
        // this call go on.
        if ctx.cancel.is_cancelled() {
            return Err(ToolError::Cancelled);
        }
        if decision.allows() {
            let mut approved = self
                .approved_protected
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            for need in asking.iter().filter(|n| protected.contains(&n.permission)) {
                approved.extend(need.patterns.iter().cloned());
            }
            return Ok(());
        }
        self.rejected.store(true, Ordering::SeqCst);
        Err(rejected())
    }
}

/// The prompt's note when `need` edits a file something runs or obeys on its own (by its
/// name, or because a protected name in `project` links to it).
fn protected_note(need: &Need, project: &Path) -> Option<String> {
    if need.permission != keys::EDIT {
        return None;
    }
    let (path, why) = need.patterns.iter().find_map(|p| {
        let why = protected::why(p).or_else(|| protected::linked_to(project, p))?;
        Some((p, why))
    })?;
    Some(format!("(Tandem asks about {path}: {why}.)"))
}

impl PermissionGate for Gate {
    fn check<'a>(
        &'a self,
        ctx: &'a ToolContext,
        check: PermissionCheck,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(self.decide(ctx, check, false))
    }

    fn verdict(&self, permission: &str, pattern: &str) -> Action {
        self.layers.evaluate(permission, pattern, &self.approvals())
    }

    fn narrow(&self, skill: &str, allowed: &[String]) {
        self.narrowed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(super::narrowing::Narrowing::new(skill, allowed));
    }

    fn narrowed_layer(&self) -> Option<Vec<Rule>> {
        let narrowed = self.narrowed.lock().unwrap_or_else(|p| p.into_inner());
        (!narrowed.is_empty()).then(|| super::narrowing::as_layer(&narrowed))
    }
}

/// The gate for one call a hook allowed: the rules' questions are answered, their denies
/// and protected files' questions hold.
pub(in crate::session) struct Preapproved(pub Arc<Gate>);

impl PermissionGate for Preapproved {
    fn check<'a>(
        &'a self,
        ctx: &'a ToolContext,
        check: PermissionCheck,
    ) -> BoxFuture<'a, Result<(), ToolError>> {
        Box::pin(self.0.decide(ctx, check, true))
    }

    fn verdict(&self, permission: &str, pattern: &str) -> Action {
        self.0.verdict(permission, pattern)
    }

    fn narrow(&self, skill: &str, allowed: &[String]) {
        self.0.narrow(skill, allowed);
    }

    fn narrowed_layer(&self) -> Option<Vec<Rule>> {
        self.0.narrowed_layer()
    }
}

#[cfg(test)]
mod tests;
