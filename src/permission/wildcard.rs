//! Wildcard matching for permission rules: `*` matches any run of characters (slashes
//! included), `?` one character, and a trailing `" *"` also matches the bare command.

/// Whether `text` matches `pattern` in full. Works on bytes with no allocation; `?` takes
/// one whole UTF-8 character.
pub fn matches(pattern: &str, text: &str) -> bool {
    if let Some(head) = pattern.strip_suffix(" *")
        && text == head
    {
        return true;
    }
    let (pattern, text) = (pattern.as_bytes(), text.as_bytes());
    // Iterative matching with backtracking to the last `*`: linear in practice.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(b'?') => {
                p += 1;
                t += char_len(text[t]);
            }
            Some(c) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    let next = star_t + char_len(text[star_t]);
                    p = star_p + 1;
                    t = next;
                    star = Some((star_p, next));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == b'*')
}

/// The length of the UTF-8 character starting with `first`.
fn char_len(first: u8) -> usize {
    match first {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_questions_and_bare_commands() {
        assert!(matches("*", ""));
        assert!(matches("*", "anything/at all"));
        assert!(matches("git status *", "git status --short"));
        assert!(matches("git status *", "git status"));
        assert!(!matches("git status *", "git statusx"));
        assert!(!matches("git status *", "git push"));
        assert!(matches("src/*.rs", "src/a/b.rs"));
        assert!(matches("*.env", "config/.env"));
        assert!(!matches("*.env", "config/.env.local"));
        assert!(matches("?.txt", "a.txt"));
        assert!(!matches("?.txt", "ab.txt"));
        assert!(matches("a*b*c", "aXbYbZc"));
        assert!(!matches("a*b*c", "aXbYbZ"));
        assert!(matches("rm -rf *", "rm -rf /"));
        assert!(matches("?.txt", "é.txt"));
        assert!(matches("*é", "aéé"));
    }
}
