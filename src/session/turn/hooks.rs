//! The hooks around a turn: `SessionStart` and `UserPromptSubmit` before the prompt is
//! stored, `Stop` / `SubagentStop` when the agent would end, `PreCompact`, `SessionEnd`.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::extension::hook::HookEvent;
use crate::message::PartBody;
use crate::session::core::state::{Services, SessionState};
use crate::session::error::{SessionError, StopReason};
use crate::session::hooks::SessionHooks;
use crate::session::turn::setup::TurnSetup;

/// How many times in one turn the `Stop` hooks may send the agent back to work.
pub(in crate::session) const MAX_STOP_CONTINUATIONS: u32 = 5;

impl SessionHooks {
    /// Before the prompt is stored: the context the hooks add (`SessionStart` on the
    /// session's first turn in this process, from `source`, then `UserPromptSubmit`), or
    /// why a hook blocked the prompt (for the person; the prompt is not kept).
    pub async fn before_prompt(
        &self,
        start: Option<&'static str>,
        prompt: &str,
    ) -> Result<Vec<String>, String> {
        let mut context = Vec::new();
        if let Some(source) = start
            && self.has(HookEvent::SessionStart)
        {
            let verdict = self
                .fire(
                    HookEvent::SessionStart,
                    &[source],
                    &|_| json!({"source": source}),
                )
                .await;
            context.extend(verdict.context);
        }
        if self.has(HookEvent::UserPromptSubmit) {
            let verdict = self
                .fire(
                    HookEvent::UserPromptSubmit,
                    &[],
                    &|_| json!({"prompt": prompt}),
                )
                .await;
            if let Some(why) = verdict.blocked() {
                return Err(format!(
                    "A UserPromptSubmit hook blocked this prompt: {why}"
                ));
            }
            context.extend(verdict.context);
        }
        Ok(context
            .into_iter()
            .map(|c| format!("<hook-context>\n{c}\n</hook-context>"))
            .collect())
    }

    /// When the agent would end its turn: why a `Stop` hook (`SubagentStop` for a child
    /// session) sends it back to work, if one does. `again` says it was sent back before.
    pub async fn at_stop(&self, subagent: bool, again: bool) -> Option<String> {
        let event = if subagent {
            HookEvent::SubagentStop
        } else {
            HookEvent::Stop
        };
        if !self.has(event) {
            return None;
        }
        let verdict = self
            .fire(event, &[], &|_| json!({"stop_hook_active": again}))
            .await;
        verdict.blocked()
    }

    /// Before a compaction (`manual` for `/compact`, else `auto`).
    pub async fn before_compact(&self, manual: bool) {
        if !self.has(HookEvent::PreCompact) {
            return;
        }
        let trigger = if manual { "manual" } else { "auto" };
        self.fire(
            HookEvent::PreCompact,
            &[trigger],
            &|_| json!({"trigger": trigger, "custom_instructions": ""}),
        )
        .await;
    }

    /// When the session closes: the person's hooks, and the project's if already approved.
    pub async fn at_end(&self, reason: &str) {
        if !self.has(HookEvent::SessionEnd) {
            return;
        }
        self.fire(HookEvent::SessionEnd, &[], &|_| json!({"reason": reason}))
            .await;
    }
}

/// The prompt with the context its hooks add (`SessionStart` first on the session's first
/// turn in this process); or, when a hook blocks it, the turn's end (the person is told why;
/// the prompt is not kept).
pub(in crate::session) async fn prompt_with_hooks(
    state: &mut SessionState,
    services: &Services,
    cancel: &CancellationToken,
    mut content: Vec<PartBody>,
) -> Result<Vec<PartBody>, StopReason> {
    // A subagent's prompt is its caller's words, not the person's.
    if state.hooks.is_empty() || state.info.parent_id.is_some() {
        return Ok(content);
    }
    let start = (!state.hooks_started).then_some(if state.messages.is_empty() {
        "startup"
    } else {
        "resume"
    });
    state.hooks_started = true;
    let hooks = SessionHooks::new(state, services, cancel.clone());
    let prompt = crate::session::turn::title::prompt_text(&content);
    let outcome = hooks.before_prompt(start, &prompt).await;
    let halted = hooks.take_halt();
    match (outcome, halted) {
        (Err(why), _) | (_, Some(why)) => {
            hooks.tell(&[why]);
            Err(StopReason::EndTurn)
        }
        (Ok(context), None) => {
            content.extend(context.into_iter().map(|text| PartBody::Text {
                text,
                synthetic: true,
            }));
            Ok(content)
        }
    }
}

/// After a step the agent ended on its own: whether a `Stop` hook sends it back to work (its
/// reason stored for the model as a note joined to the turn), at most
/// `MAX_STOP_CONTINUATIONS` times a turn; `sent_back` counts them.
pub(in crate::session) async fn sent_back(
    state: &mut SessionState,
    setup: &TurnSetup,
    sent_back: &mut u32,
) -> Result<bool, SessionError> {
    if *sent_back >= MAX_STOP_CONTINUATIONS {
        return Ok(false);
    }
    let subagent = state.info.parent_id.is_some();
    let Some(why) = setup.hooks.at_stop(subagent, *sent_back > 0).await else {
        return Ok(false);
    };
    *sent_back += 1;
    let text = format!(
        "<system-reminder>A {} hook asks you to go on before ending: {why}</system-reminder>",
        if subagent { "SubagentStop" } else { "Stop" }
    );
    let note = PartBody::Text {
        text,
        synthetic: true,
    };
    let message = crate::session::turn::joining::joined_message(state, setup, vec![note]);
    setup.writer.store_message(&message)?;
    state.messages.push(message);
    Ok(true)
}

/// After a step: the turn's end when a hook said `"continue": false` (the person told why).
pub(in crate::session) fn halted(setup: &TurnSetup) -> Option<StopReason> {
    let why = setup.hooks.take_halt()?;
    setup.hooks.tell(&[why]);
    Some(StopReason::EndTurn)
}
