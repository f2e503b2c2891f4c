//! Rewinding to before a message, as clients name one: by Tandem's id, or (when the client's
//! ids are its own) by the SHA-256 of the message's text and which occurrence of that text it
//! is. What a rewind would drop and put back is worked out without doing it (a dry run); doing
//! it is a revert, so `/redo` brings it back.

use crate::id::MessageId;
use crate::message::{Message, PartBody, Role, SessionRevert};

/// A message as a client names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageRef {
    pub id: Option<String>,
    /// `sha256:<hex>` of the message's text.
    pub fingerprint: Option<String>,
    /// Which message with that text, counting from 1 (the first when not given).
    pub occurrence: Option<usize>,
}

/// What a rewind drops and puts back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewindPlan {
    /// The messages that leave the conversation.
    pub messages: usize,
    /// The files put back as they were (the project's relative, another root's absolute).
    pub files: Vec<String>,
}

/// The person's message `target` names among `messages`: by id first, then by its text.
pub fn resolve(messages: &[Message], target: &MessageRef) -> Option<MessageId> {
    let prompts = messages.iter().filter(|m| m.info.role == Role::User);
    if let Some(id) = &target.id
        && let Some(found) = prompts.clone().find(|m| m.info.id.as_str() == id)
    {
        return Some(found.info.id.clone());
    }
    let wanted = target.fingerprint.as_deref()?;
    let nth = target.occurrence.unwrap_or(1).checked_sub(1)?;
    prompts
        .filter(|m| fingerprint(m) == wanted)
        .nth(nth)
        .map(|m| m.info.id.clone())
}

/// `sha256:<hex>` of the text the person wrote in `message`.
pub fn fingerprint(message: &Message) -> String {
    let text: String = message
        .parts
        .iter()
        .filter_map(|p| match &p.body {
            PartBody::Text {
                text,
                synthetic: false,
            } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
    format!("sha256:{}", crate::config::hex(digest.as_ref()))
}

/// What rewinding `messages` (those shown) to before `from` would do, given the revert pending.
pub fn plan(messages: &[Message], pending: Option<&SessionRevert>, from: &MessageId) -> RewindPlan {
    let Some(at) = messages.iter().position(|m| &m.info.id == from) else {
        return RewindPlan::default();
    };
    let dropped = &messages[at..];
    let earliest = super::revert::earliest_states(dropped);
    RewindPlan {
        messages: dropped.len(),
        files: super::revert::files_to_restore(pending, &earliest),
    }
}
