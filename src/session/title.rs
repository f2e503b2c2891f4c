//! Session titles: the placeholder a new session gets, and the title its first prompt gives it
//! (the first non-empty line, at most 50 characters).

use crate::message::PartBody;

const DEFAULT_PREFIX: &str = "New session - ";

/// The placeholder title of a session created at `now` (ms since the epoch).
pub(super) fn default_title(now: i64) -> String {
    format!("{DEFAULT_PREFIX}{}", crate::id::iso8601(now))
}

pub(super) fn is_default_title(title: &str) -> bool {
    title.starts_with(DEFAULT_PREFIX)
}

/// A title from the first prompt: its first non-empty line, at most 50 characters.
pub(super) fn from_prompt(content: &[PartBody]) -> Option<String> {
    let text = content.iter().find_map(|part| match part {
        PartBody::Text {
            text,
            synthetic: false,
        } => text.lines().map(str::trim).find(|l| !l.is_empty()),
        _ => None,
    })?;
    let mut title: String = text.chars().take(50).collect();
    if text.chars().count() > 50 {
        title = title.trim_end().to_owned();
        title.push('…');
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_come_from_the_first_line() {
        let text = |t: &str| {
            vec![PartBody::Text {
                text: t.into(),
                synthetic: false,
            }]
        };
        assert_eq!(
            from_prompt(&text("\n  Fix the bug\nin main")).as_deref(),
            Some("Fix the bug")
        );
        let long = "a".repeat(60);
        assert_eq!(from_prompt(&text(&long)).unwrap().chars().count(), 51);
        assert_eq!(from_prompt(&text("   ")), None);
        assert!(is_default_title(&default_title(0)));
    }
}
