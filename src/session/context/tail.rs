//! The turns a compaction keeps verbatim: up to `tail_turns` recent user turns (default 2),
//! within a token budget (default a quarter of the usable window, between 2,000 and 8,000);
//! a turn too big for what is left of the budget is cut to its newest messages that fit.

use super::message_tokens;
use crate::config::CompactionConfig;
use crate::message::{Message, Role};

const DEFAULT_TAIL_TURNS: u32 = 2;
const MIN_PRESERVE_RECENT_TOKENS: u64 = 2_000;
const MAX_PRESERVE_RECENT_TOKENS: u64 = 8_000;

/// The token budget of the kept turns, for a window of `usable` tokens.
pub(in crate::session) fn budget(config: &CompactionConfig, usable: Option<u64>) -> u64 {
    config.preserve_recent_tokens.unwrap_or_else(|| {
        let quarter = usable.unwrap_or(0) / 4;
        quarter.clamp(MIN_PRESERVE_RECENT_TOKENS, MAX_PRESERVE_RECENT_TOKENS)
    })
}

/// Where the kept tail of `messages` begins (an index into it), if anything is kept.
pub(in crate::session) fn start(
    messages: &[&Message],
    config: &CompactionConfig,
    budget: u64,
) -> Option<usize> {
    let turns = config.tail_turns.unwrap_or(DEFAULT_TAIL_TURNS);
    if turns == 0 {
        return None;
    }
    let mut used = 0u64;
    let mut seen_turns = 0u32;
    let mut start = None;
    for (index, message) in messages.iter().enumerate().rev() {
        used += message_tokens(message);
        if used > budget {
            break;
        }
        start = Some(index);
        if message.info.role == Role::User && !message.info.summary {
            seen_turns += 1;
            if seen_turns == turns {
                break;
            }
        }
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::SessionId;
    use crate::message::{MessageInfo, PartBody};

    fn message(role: Role, chars: usize) -> Message {
        let info = MessageInfo::new(SessionId::from("s"), role, "build", 0);
        let text = PartBody::Text {
            text: "x".repeat(chars),
            synthetic: false,
        };
        Message::with_parts(info, [text])
    }

    #[test]
    fn keeps_two_turns_within_the_budget_and_cuts_a_big_one() {
        let history = [
            message(Role::User, 400),
            message(Role::Assistant, 400),
            message(Role::User, 400),
            message(Role::Assistant, 400),
            message(Role::User, 400),
            message(Role::Assistant, 400),
        ];
        let refs: Vec<&Message> = history.iter().collect();
        let config = CompactionConfig::default();
        assert_eq!(start(&refs, &config, 8_000), Some(2));
        assert_eq!(start(&refs, &config, 250), Some(4));
        // 150 tokens: only the last answer fits; the turn is cut.
        assert_eq!(start(&refs, &config, 150), Some(5));
        assert_eq!(start(&refs, &config, 10), None);
        assert_eq!(budget(&config, Some(119_808)), 8_000);
        assert_eq!(budget(&config, Some(4_000)), 2_000);
        assert_eq!(budget(&config, Some(20_000)), 5_000);
    }
}
