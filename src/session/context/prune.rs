//! Pruning: the outputs of old tool calls leave the model's requests once the newer ones fill
//! 40,000 tokens and the old ones add up to more than 20,000. The last two user turns are
//! never touched, nor anything before a compaction's summary; the stored output stays, so the
//! editor still shows it on `session/load`.

use crate::message::{Message, Part, PartBody, Role, ToolState};
use crate::provider::tokens;

/// Pruning is not worth a cache miss for less than this.
const PRUNE_MINIMUM: u64 = 20_000;
/// The newest tool outputs kept in full.
const PRUNE_PROTECT: u64 = 40_000;
/// Tools whose output is always kept.
const PROTECTED_TOOLS: &[&str] = &["skill"];
/// Recent user turns whose calls are never pruned.
const PROTECTED_TURNS: u32 = 2;

/// Marks what is to be pruned in `messages` (at `now`); returns the changed parts to store.
pub(in crate::session) fn prune(messages: &mut [Message], now: i64) -> Vec<Part> {
    let mut turns = 0u32;
    let mut kept = 0u64;
    let mut freed = 0u64;
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    'messages: for (m, message) in messages.iter().enumerate().rev() {
        if message.info.role == Role::User {
            turns += 1;
        }
        if turns < PROTECTED_TURNS {
            continue;
        }
        if message.info.summary {
            break;
        }
        for (p, part) in message.parts.iter().enumerate().rev() {
            let PartBody::Tool(call) = &part.body else {
                continue;
            };
            let ToolState::Completed { output, .. } = &call.state else {
                continue;
            };
            if PROTECTED_TOOLS.contains(&call.tool.as_str()) {
                continue;
            }
            if call.pruned_at.is_some() {
                break 'messages;
            }
            let estimate = tokens(output.len());
            kept += estimate;
            if kept > PRUNE_PROTECT {
                freed += estimate;
                candidates.push((m, p));
            }
        }
    }
    if freed <= PRUNE_MINIMUM {
        return Vec::new();
    }
    candidates
        .into_iter()
        .filter_map(|(m, p)| {
            let part = &mut messages[m].parts[p];
            let PartBody::Tool(call) = &mut part.body else {
                return None;
            };
            call.pruned_at = Some(now);
            Some(part.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::SessionId;
    use crate::message::{MessageInfo, ToolPart};
    use serde_json::json;

    fn message(role: Role, outputs: &[usize]) -> Message {
        let info = MessageInfo::new(SessionId::from("s"), role, "build", 0);
        let bodies = outputs.iter().map(|chars| {
            PartBody::tool(ToolPart {
                call_id: "c".into(),
                tool: "read".into(),
                kind: None,
                state: ToolState::Completed {
                    input: json!({}),
                    output: "x".repeat(*chars),
                    title: String::new(),
                    metadata: json!({}),
                    diffs: vec![],
                    attachments: vec![],
                    terminal_id: None,
                    started_at: 0,
                    ended_at: 0,
                },
                title: None,
                locations: vec![],
                pruned_at: None,
                hosted: false,
            })
        });
        Message::with_parts(info, bodies)
    }

    fn pruned(messages: &[Message]) -> Vec<bool> {
        messages
            .iter()
            .flat_map(|m| &m.parts)
            .map(|p| matches!(&p.body, PartBody::Tool(c) if c.pruned_at.is_some()))
            .collect()
    }

    #[test]
    fn only_what_lies_beyond_the_protected_tokens_and_over_the_minimum() {
        // 10,000 tokens per output; the last two turns are protected.
        let turn = |n| message(Role::Assistant, &vec![40_000; n]);
        let mut history = vec![
            message(Role::User, &[]),
            turn(4),
            message(Role::User, &[]),
            turn(3),
            message(Role::User, &[]),
            turn(1),
            message(Role::User, &[]),
            turn(1),
        ];
        // Beyond the newest 40,000 tokens: 3 outputs (30,000 > 20,000): pruned.
        let changed = prune(&mut history, 7);
        assert_eq!(changed.len(), 3);
        assert_eq!(
            pruned(&history),
            [true, true, true, false, false, false, false, false, false]
        );
        // A second pass stops at what is already pruned.
        assert!(prune(&mut history, 8).is_empty());

        // 2 outputs beyond (20,000, not more than the minimum): nothing.
        let mut small = vec![
            message(Role::User, &[]),
            turn(6),
            message(Role::User, &[]),
            message(Role::User, &[]),
        ];
        assert!(prune(&mut small, 7).is_empty());
    }
}
