//! Telling the model of its background jobs and subagents: one that ended is reported at the
//! next step of the running turn, or with the next prompt; a cancelled turn lists the jobs
//! still running, and any turn the subagents still working.

use crate::bus::Event;
use crate::id::{MessageId, PartId};
use crate::message::PartBody;
use crate::session::core::state::SessionState;
use crate::session::error::SessionError;
use crate::session::ports::subagent::report;

use super::setup::TurnSetup;

/// A reminder of the jobs and subagents that ended since the model was last told, if any.
pub(in crate::session) fn ended_reminder(state: &SessionState) -> Option<String> {
    let jobs = state.jobs.newly_ended();
    let children = state.background.newly_ended();
    if jobs.is_empty() && children.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = jobs
        .iter()
        .map(|(job, end)| format!("Background job {} (`{}`) {end}.", job.id, job.command))
        .collect();
    if !jobs.is_empty() {
        lines.push("Read what it printed with bash_output.".into());
    }
    lines.extend(children.iter().map(|(child, end)| report(child, end)));
    Some(format!(
        "<system-reminder>\n{}\n</system-reminder>",
        lines.join("\n")
    ))
}

/// Between steps: a job that ended reaches the model as a note joined to the turn.
pub(in crate::session) fn remind_between_steps(
    state: &mut SessionState,
    setup: &TurnSetup,
) -> Result<(), SessionError> {
    let Some(reminder) = ended_reminder(state) else {
        return Ok(());
    };
    let note = PartBody::Text {
        text: reminder,
        synthetic: true,
    };
    let message = crate::session::turn::joining::joined_message(state, setup, vec![note]);
    setup.writer.store_message(&message)?;
    state.messages.push(message);
    Ok(())
}

/// After a cancelled turn: the jobs it leaves running, said to the person.
pub(in crate::session) fn left_running(state: &SessionState, setup: &TurnSetup) {
    let running = state.jobs.running();
    if running.is_empty() {
        return;
    }
    let jobs: Vec<String> = running
        .iter()
        .map(|job| format!("{} `{}`", job.id, job.command))
        .collect();
    setup.writer.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: MessageId::new(),
        part_id: PartId::new(),
        delta: format!(
            "\n\nStill running in the background: {}. /jobs lists them; /jobs kill ID ends one.\n",
            jobs.join(", ")
        ),
    });
}

/// After any turn: the subagents it leaves working in the background, said to the person.
pub(in crate::session) fn children_working(state: &SessionState, setup: &TurnSetup) {
    let running = state.background.running();
    if running.is_empty() {
        return;
    }
    let children: Vec<String> = running
        .iter()
        .map(|child| format!("{} ({})", child.label(), child.session))
        .collect();
    setup.writer.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: MessageId::new(),
        part_id: PartId::new(),
        delta: format!(
            "\n\nStill working in the background: {}. You will be told when each ends; /jobs \
             lists them.\n",
            children.join(", ")
        ),
    });
}
