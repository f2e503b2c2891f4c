//! Wildcard matching for permission rules: `*` matches any run of characters (slashes
//! included), `?` one character, and a trailing `" *"` also matches the bare command.

/// Whether `text` matches `pattern` in full.
pub fn matches(pattern: &str, text: &str) -> bool {
    if let Some(head) = pattern.strip_suffix(" *")
        && text == head
    {
        return true;
    }
    let pattern: Vec<char> = pattern.chars().collect();
    let text: Vec<char> = text.chars().collect();
    // Iterative matching with backtracking to the last `*`: linear in practice.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some('?') => {
                p += 1;
                t += 1;
            }
            Some(c) if *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
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
    }
}
