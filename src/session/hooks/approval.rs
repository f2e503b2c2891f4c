//! The person's approval of a project's hooks: asked once per content (the hooks'
//! fingerprint), remembered for the process, and for good when they answer "always".

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::json;

use crate::hook::{HookSet, PROJECT_HOOKS};
use crate::id::{SessionId, now_ms};
use crate::message::ToolKind;
use crate::permission::{Action, Rule};
use crate::store::Store;
use crate::tool::{ClientPort, PermissionDecision, PermissionRequest};

/// The answers given in this process, by (project, fingerprint); one question at a time.
#[derive(Default)]
pub(in crate::session) struct HookApprovals {
    answers: tokio::sync::Mutex<HashMap<(String, String), bool>>,
}

impl HookApprovals {
    /// Whether the project's hooks in `set` may run. Asks through `port` when nobody has
    /// answered for this content yet; without a port (no one to ask), they may not.
    pub async fn approved(
        &self,
        set: &HookSet,
        (project, session): (&str, &SessionId),
        store: &Store,
        port: Option<&Arc<dyn ClientPort>>,
    ) -> bool {
        let Some(fingerprint) = set.project_fingerprint() else {
            return true;
        };
        let key = (project.to_owned(), fingerprint.clone());
        let mut answers = self.answers.lock().await;
        if let Some(answer) = answers.get(&key) {
            return *answer;
        }
        let stored = store
            .approvals(project)
            .unwrap_or_default()
            .into_iter()
            .rev()
            .find(|rule| rule.permission == PROJECT_HOOKS && rule.pattern == fingerprint)
            .map(|rule| rule.action == Action::Allow);
        if let Some(answer) = stored {
            answers.insert(key, answer);
            return answer;
        }
        let Some(port) = port else {
            return false;
        };
        let listing = set.project_listing(std::path::Path::new(project));
        let request = PermissionRequest {
            session_id: session.clone(),
            call_id: format!("hooks-{}", &fingerprint[..12]),
            tool: "hooks".into(),
            kind: ToolKind::Execute,
            permission: PROJECT_HOOKS.into(),
            title: format!(
                "This project has hooks: commands Tandem runs on its own around the agent's work. Run them?\n{listing}"
            ),
            input: json!({"hooks": listing.lines().collect::<Vec<_>>()}),
            locations: Vec::new(),
            diffs: Vec::new(),
        };
        let decision = port.request_permission(request).await;
        let answer = decision.allows();
        let lasting = match decision {
            PermissionDecision::AllowAlways => Some(Action::Allow),
            PermissionDecision::RejectAlways => Some(Action::Deny),
            _ => None,
        };
        if let Some(action) = lasting {
            let rule = Rule::new(PROJECT_HOOKS, &fingerprint, action);
            if let Err(error) = store.put_approval(project, &rule, now_ms()) {
                tracing::warn!(%error, "cannot store the answer about the project's hooks");
            }
        }
        // A cancelled question is asked again next time; an answer holds for the process.
        if decision != PermissionDecision::Cancelled {
            answers.insert(key, answer);
        }
        answer
    }
}
