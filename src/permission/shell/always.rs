//! The prefix an "always allow" answer records for a command (`git commit -m x` →
//! `git commit *`), by how many leading words name what the command does.

/// How many leading words name what a command does, for tools whose subcommand matters.
const ARITY: &[(&str, usize)] = &[
    ("git", 2),
    ("npm", 2),
    ("npm run", 3),
    ("npx", 2),
    ("pnpm", 2),
    ("pnpm run", 3),
    ("yarn", 2),
    ("yarn run", 3),
    ("bun", 2),
    ("bun run", 3),
    ("cargo", 2),
    ("go", 2),
    ("docker", 2),
    ("docker compose", 3),
    ("kubectl", 2),
    ("pip", 2),
    ("uv", 2),
    ("make", 2),
    ("gh", 3),
];

/// The pattern an "always" answer records for a command of `words` (quotes removed, no
/// prefix assignment): its prefix by arity plus `" *"`. `None` when a word of the prefix is
/// an option or holds characters a rule would read as a wildcard or that quote or expand.
pub fn always_pattern(words: &[&str]) -> Option<String> {
    let mut arity = 1;
    for (prefix, n) in ARITY {
        let prefix_words: Vec<&str> = prefix.split(' ').collect();
        if words.len() >= prefix_words.len()
            && words[..prefix_words.len()] == prefix_words[..]
            && *n > arity
        {
            arity = *n;
        }
    }
    let kept = &words[..arity.min(words.len())];
    let safe = |(index, word): (usize, &&str)| {
        let option = index > 0 && word.starts_with('-');
        !word.is_empty()
            && !option
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+,".contains(c))
    };
    (!kept.is_empty() && kept.iter().enumerate().all(safe)).then(|| format!("{} *", kept.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::always_pattern;

    fn always(command: &str) -> Option<String> {
        always_pattern(&command.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn always_patterns_follow_arity() {
        assert_eq!(always("git commit -m x").as_deref(), Some("git commit *"));
        assert_eq!(
            always("npm run dev --port 3").as_deref(),
            Some("npm run dev *")
        );
        assert_eq!(always("npm install").as_deref(), Some("npm install *"));
        assert_eq!(always("ls -la").as_deref(), Some("ls *"));
        assert_eq!(always("cargo").as_deref(), Some("cargo *"));
    }

    #[test]
    fn no_prefix_that_a_rule_would_read_as_a_wildcard_or_an_option() {
        assert_eq!(
            always("git st* x"),
            None,
            "`*` would cover every subcommand"
        );
        assert_eq!(always("git -c core.pager=x log"), None);
        assert_eq!(always("l? -la"), None);
        assert_eq!(always("gh pr $x"), None);
    }
}
