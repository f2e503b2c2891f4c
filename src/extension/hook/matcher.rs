//! Hook matchers. Claude Code writes them as regular expressions, and in use they are names,
//! alternatives and wildcards (`Bash`, `Edit|Write`, `mcp__github__.*`, `^Notebook.*$`). That
//! part of the syntax is read here onto the permission rules' wildcards; anything beyond it is
//! refused with a reason, so a hook never silently matches more or less than was written.
//! (A regex engine cost 40-480 KB of binary for the same matchers.)

use crate::permission::wildcard;

/// The alternatives of one matcher, as wildcard patterns.
#[derive(Debug, Clone, PartialEq)]
pub struct Matcher(Vec<String>);

impl Matcher {
    /// `None` for a matcher that matches everything (empty, `*`, `.*`); an error says which
    /// part Tandem does not read.
    pub fn parse(written: &str) -> Result<Option<Self>, String> {
        let mut text = written.trim();
        text = text.strip_prefix('^').unwrap_or(text);
        text = text.strip_suffix('$').unwrap_or(text);
        if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')'))
            && !inner.contains(['(', ')'])
        {
            text = inner;
        }
        if matches!(text, "" | "*" | ".*") {
            return Ok(None);
        }
        let alternatives = text
            .split('|')
            .map(|alternative| alternative_pattern(alternative.trim()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Self(alternatives)))
    }

    pub fn is_match(&self, name: &str) -> bool {
        self.0
            .iter()
            .any(|pattern| wildcard::matches(pattern, name))
    }
}

/// One alternative as a wildcard pattern: `.*` is `*`, `.+` is `?*`, `.` is `?`, `\x` is `x`.
fn alternative_pattern(alternative: &str) -> Result<String, String> {
    let mut pattern = String::with_capacity(alternative.len());
    let mut chars = alternative.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '.' => match chars.peek() {
                Some('*') => {
                    chars.next();
                    pattern.push('*');
                }
                Some('+') => {
                    chars.next();
                    pattern.push_str("?*");
                }
                _ => pattern.push('?'),
            },
            '\\' => match chars.next() {
                Some(escaped) if !escaped.is_alphanumeric() => pattern.push(escaped),
                _ => return Err(unsupported(alternative)),
            },
            '*' | '?' | '+' | '(' | ')' | '[' | ']' | '{' | '}' | '^' | '$' => {
                return Err(unsupported(alternative));
            }
            other => pattern.push(other),
        }
    }
    if pattern.is_empty() {
        return Err(unsupported(alternative));
    }
    Ok(pattern)
}

fn unsupported(alternative: &str) -> String {
    format!(
        "`{alternative}` uses more of regular expressions than Tandem reads in matchers (names, `|`, `.*`, `.+`, `.`, `^…$`)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(written: &str) -> Matcher {
        Matcher::parse(written).unwrap().unwrap()
    }

    #[test]
    fn the_matchers_people_write_match_as_regular_expressions_would() {
        let edits = matcher("Edit|MultiEdit|Write");
        assert!(edits.is_match("Write") && edits.is_match("Edit"));
        assert!(!edits.is_match("Editor") && !edits.is_match("write"));
        let mcp = matcher("mcp__github__.*");
        assert!(mcp.is_match("mcp__github__create_issue") && !mcp.is_match("mcp__gitlab__x"));
        assert!(matcher("^Notebook.*$").is_match("NotebookEdit"));
        assert!(matcher("(Bash|Read)").is_match("Read"));
        assert!(matcher("Web.+").is_match("WebFetch") && !matcher("Web.+").is_match("Web"));
        assert!(matcher(r"mcp__a\.b__x").is_match("mcp__a.b__x"));
        for all in ["", "*", ".*", "^.*$"] {
            assert_eq!(Matcher::parse(all), Ok(None), "{all}");
        }
    }

    #[test]
    fn more_of_the_syntax_is_refused_rather_than_guessed() {
        for written in ["Bash|[Ee]dit", "mcp__(a|b)__.*", r"\d+", "Edit?", "Bash|"] {
            assert!(Matcher::parse(written).is_err(), "{written}");
        }
    }
}
