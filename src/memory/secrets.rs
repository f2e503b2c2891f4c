//! What looks like a secret in a note: a well-known key's prefix, a private key block, a
//! credential assignment, or a long random-looking token. A note holding one is never kept.

/// Prefixes of keys and tokens the big services issue.
const PREFIXES: &[&str] = &[
    "sk-",
    "sk_live_",
    "sk_test_",
    "rk_live_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xapp-",
    "AKIA",
    "ASIA",
    "AIza",
    "npm_",
    "hf_",
    "tvly-",
    "pypi-",
    "eyJ",
];

/// Words that, followed by `=` or `:` and a value, name a credential.
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "private_key",
    "client_secret",
    "authorization",
];

/// Why `text` looks like it holds a secret; None when it does not.
pub fn secret_in(text: &str) -> Option<&'static str> {
    if text.contains("PRIVATE KEY-----") {
        return Some("a private key");
    }
    let lower = text.to_ascii_lowercase();
    for word in CREDENTIAL_WORDS {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word) {
            let rest = lower[from + at + word.len()..].trim_start();
            let value = rest
                .strip_prefix('=')
                .or_else(|| rest.strip_prefix(':'))
                .map(|v| v.trim_start().trim_start_matches(['"', '\'']));
            if value.is_some_and(|v| v.chars().take_while(|c| !c.is_whitespace()).count() >= 6) {
                return Some("a credential assignment");
            }
            from += at + word.len();
        }
    }
    for token in text.split(|c: char| c.is_whitespace() || "\"'`,;()<>[]{}".contains(c)) {
        let token = token.trim_matches(|c: char| c == '.' || c == ':');
        if PREFIXES.iter().any(|p| token.starts_with(p)) && token.len() >= 16 {
            return Some("a key or token");
        }
        if random_looking(token) {
            return Some("a long random-looking token");
        }
    }
    None
}

/// 32 or more characters of a key alphabet, with digits and letters of both cases mixed in.
fn random_looking(token: &str) -> bool {
    token.len() >= 32
        && token
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+/=_-".contains(c))
        && token.chars().any(|c| c.is_ascii_digit())
        && token.chars().any(|c| c.is_ascii_lowercase())
        && token.chars().any(|c| c.is_ascii_uppercase())
        && !token.contains("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tokens_and_assignments_are_caught_and_ordinary_notes_are_not() {
        assert!(secret_in("use OPENAI key sk-proj-abcdefghijklmnop1234").is_some());
        assert!(secret_in("ghp_16C7e42F292c6912E7710c838347Ae178B4a").is_some());
        assert!(secret_in("DB password = hunter2hunter2").is_some());
        assert!(secret_in("token: 'abcdef123456'").is_some());
        assert!(secret_in("-----BEGIN RSA PRIVATE KEY-----").is_some());
        assert!(secret_in("x 9fQ2kLp8ZrT4vW1nB6yH3mC0aD5eG7jXu y").is_some());
        assert!(secret_in("Run `cargo test --all-targets` before committing.").is_none());
        assert!(secret_in("The person prefers tabs; the token type is an enum.").is_none());
        assert!(secret_in("Build with make -C build/release_with_debug_info").is_none());
    }
}
