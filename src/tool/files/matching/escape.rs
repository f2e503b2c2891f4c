//! `oldString` written with escape sequences a model left in (`\n`, `\t`, `\"`, `\\`…), read
//! the way the model meant them, in one pass from the left so `\\` is never half of `\n`.

use std::borrow::Cow;

use super::Candidate;

/// `text` with each escape sequence a model writes by mistake read as its character.
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let next = chars.clone().next();
        let meant = match next {
            Some('n') => Some('\n'),
            Some('t') => Some('\t'),
            Some('r') => Some('\r'),
            Some(c @ ('\'' | '"' | '`' | '\\' | '\n' | '$')) => Some(c),
            _ => None,
        };
        match meant {
            Some(meant) => {
                chars.next();
                out.push(meant);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `oldString` unescaped, if the file has it; and the blocks of the file that, unescaped,
/// are `oldString` unescaped (the file holds the escapes).
pub fn candidates<'a>(content: &'a str, old: &str) -> Vec<Candidate<'a>> {
    if !old.contains('\\') && !content.contains('\\') {
        return Vec::new();
    }
    let meant = unescape(old);
    let mut found = Vec::new();
    if meant != old && content.contains(meant.as_str()) {
        found.push(Candidate {
            unescape_new: true,
            ..Candidate::text(Cow::Owned(meant.clone()))
        });
    }
    // A block holding `\n` escapes has fewer lines than `oldString` unescaped: try each size.
    let lines: Vec<&str> = content.split('\n').collect();
    let most = meant.split('\n').count().min(lines.len());
    // Each size tries every window: a bound on the bytes joined keeps a huge `oldString` on
    // a file full of backslashes from running for minutes.
    let mut budget: usize = 64 << 20;
    for n in 1..=most {
        for i in 0..=lines.len() - n {
            if !lines[i..i + n].iter().any(|l| l.contains('\\')) {
                continue;
            }
            let block = lines[i..i + n].join("\n");
            budget = budget.saturating_sub(block.len());
            if budget == 0 {
                return found;
            }
            if unescape(&block) == meant {
                found.push(Candidate::lines(Cow::Owned(block)));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_escape_in_one_pass() {
        assert_eq!(unescape(r"a\nb\tc"), "a\nb\tc");
        assert_eq!(
            unescape(r#"say \"hi\" and \'bye\'"#),
            r#"say "hi" and 'bye'"#
        );
        assert_eq!(unescape(r"\`cmd\` costs \$5"), "`cmd` costs $5");
        // A doubled backslash is one backslash, never the start of `\n` or `\t`.
        assert_eq!(unescape(r"C:\\Users\\test"), r"C:\Users\test");
        assert_eq!(unescape(r"C:\\new\\table"), r"C:\new\table");
        // Anything else is left as written.
        assert_eq!(unescape(r"\d+ \x \"), r"\d+ \x \");
    }
}
