//! The hooks as one session runs them: which match an event, running them together, telling
//! the person what they said, and the tools they wrap (a turn's own hooks are in `turn/`).

pub(in crate::session) mod tools;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::bus::{Bus, Event};
use crate::extension::hook::{Dialect, HookEvent, HookSet, Reply, Verdict};
use crate::id::{MessageId, PartId, SessionId};
use crate::sandbox::Policy;
use crate::session::core::state::{Services, SessionState};

/// A session's hooks for one turn (or one event outside a turn).
pub(in crate::session) struct SessionHooks {
    set: Arc<HookSet>,
    session_id: SessionId,
    cwd: PathBuf,
    sandbox: Policy,
    bus: Arc<Bus>,
    cancel: CancellationToken,
    /// A hook's `"continue": false`: the turn ends after this step, for this reason.
    halt: Mutex<Option<String>>,
}

impl SessionHooks {
    pub fn new(state: &SessionState, services: &Services, cancel: CancellationToken) -> Self {
        Self {
            set: state.hooks.clone(),
            session_id: state.info.id.clone(),
            cwd: state.info.cwd.clone(),
            sandbox: Policy::for_workspace(
                state.config.config.sandbox.as_ref(),
                &state.info.cwd,
                &state.info.extra_roots,
            ),
            bus: services.bus.clone(),
            cancel,
            halt: Mutex::default(),
        }
    }

    /// Whether any hook runs on `event` at all.
    pub fn has(&self, event: HookEvent) -> bool {
        !self.set.is_empty() && self.set.matching(event, &[]).next().is_some()
    }

    /// Runs the hooks of `event` matching `subject`, together; `fields` gives each dialect's
    /// event-specific input. The project's are here only in a trusted folder, and run only
    /// while the files they run are as the person trusted them.
    pub async fn fire(
        &self,
        event: HookEvent,
        subject: &[&str],
        fields: &(dyn Fn(Dialect) -> Value + Sync),
    ) -> Verdict {
        let mut verdict = Verdict::default();
        if self.set.is_empty() {
            return verdict;
        }
        let matching: Vec<_> = self.set.matching(event, subject).collect();
        if matching.is_empty() {
            return verdict;
        }
        let mut unchanged = Vec::new();
        for hook in matching {
            match self.set.changed_since_trusted(hook) {
                None => unchanged.push(hook),
                Some(file) => verdict.notices.push(format!(
                    "The project's hook `{}` was not run: {} changed since you trusted this \
                     folder. Tandem asks about the folder again at your next prompt.",
                    hook.command,
                    crate::paths::relative_to(&self.cwd, &file)
                )),
            }
        }
        let runs = unchanged.into_iter().map(|hook| {
            let input = crate::extension::hook::input(
                &self.session_id.0,
                &self.cwd,
                event,
                fields(hook.dialect),
            );
            async move {
                let ran = crate::extension::hook::run(
                    hook,
                    &input,
                    &hook.folder,
                    &self.sandbox,
                    &self.cancel,
                )
                .await;
                (hook, Reply::read(hook, event, &ran))
            }
        });
        for (hook, reply) in futures::future::join_all(runs).await {
            verdict.add(hook, reply);
        }
        if let Some(why) = verdict.halt.clone() {
            *self.halt.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
        }
        self.tell(&std::mem::take(&mut verdict.notices));
        verdict
    }

    /// The reason a hook gave for ending the turn, once.
    pub fn take_halt(&self) -> Option<String> {
        self.halt.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Shows the person what hooks said for them (never the model).
    pub fn tell(&self, notices: &[String]) {
        for notice in notices {
            self.bus.publish(Event::TextDelta {
                session_id: self.session_id.clone(),
                message_id: MessageId::new(),
                part_id: PartId::new(),
                delta: format!("\n{notice}\n\n"),
            });
        }
    }

    /// `Notification`: Tandem asks the person something; run in the background, and only
    /// hooks that may run without asking.
    pub fn notify(self: &Arc<Self>, message: String) {
        if !self.has(HookEvent::Notification) {
            return;
        }
        let hooks = self.clone();
        tokio::spawn(async move {
            let fields = |_| serde_json::json!({"message": message});
            hooks.fire(HookEvent::Notification, &[], &fields).await;
        });
    }
}
