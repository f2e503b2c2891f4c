//! One shell word as the shell will see it: its fixed value (quotes removed, escapes and a
//! leading `~` applied) when nothing computes it at run time, and whether it is a glob.

use tree_sitter::Node;

/// A word of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word as written.
    pub raw: String,
    /// Its value when no expansion, substitution or brace expansion can change it.
    pub value: Option<String>,
    /// Whether the value holds unquoted glob characters (`*`, `?`, `[`).
    pub glob: bool,
}

impl Word {
    /// A word whose value is exactly `text`.
    pub fn fixed(text: &str) -> Self {
        Self {
            raw: text.to_owned(),
            value: Some(text.to_owned()),
            glob: false,
        }
    }

    /// What rules match: the value when fixed, else the word as written.
    pub fn text(&self) -> &str {
        self.value.as_deref().unwrap_or(&self.raw)
    }

    /// The fixed value of a word that is not a glob.
    pub fn plain(&self) -> Option<&str> {
        self.value.as_deref().filter(|_| !self.glob)
    }

    /// The part of the word after its first `at` bytes (an option's value glued to it).
    pub fn after(&self, at: usize) -> Word {
        Word {
            raw: self.raw.get(at..).unwrap_or_default().to_owned(),
            value: self
                .value
                .as_ref()
                .and_then(|v| v.get(at..))
                .map(str::to_owned),
            glob: self.glob,
        }
    }
}

/// The word `node` of `source`.
pub fn word(node: Node<'_>, source: &str) -> Word {
    let mut glob = false;
    let value = value_of(node, source, &mut glob, true);
    Word {
        raw: source[node.byte_range()].to_owned(),
        value,
        glob,
    }
}

fn value_of(node: Node<'_>, source: &str, glob: &mut bool, first: bool) -> Option<String> {
    let text = &source[node.byte_range()];
    match node.kind() {
        "word" | "number" => bare(text, glob, first),
        "raw_string" => Some(text.get(1..text.len().checked_sub(1)?)?.to_owned()),
        "string" => {
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "string_content")
            {
                return None;
            }
            Some(double_quoted(text.get(1..text.len().checked_sub(1)?)?))
        }
        "ansi_c_string" => ansi_c(text.get(2..text.len().checked_sub(1)?)?),
        "concatenation" => {
            let mut value = String::new();
            let mut cursor = node.walk();
            for (index, child) in node.children(&mut cursor).enumerate() {
                value.push_str(&value_of(child, source, glob, first && index == 0)?);
            }
            // `{a,b}` arrives as the words `{`, `a,b`, `}`: brace expansion makes new words.
            (!braces(&value)).then_some(value)
        }
        "command_name" => value_of(node.named_child(0)?, source, glob, first),
        _ => None,
    }
}

/// Whether `text` could be brace-expanded (`{a,b}`, `{1..3}`); `{}` alone stays as it is.
fn braces(text: &str) -> bool {
    text != "{}" && text.contains('{') && text.contains('}')
}

/// An unquoted word: backslash escapes removed (a backslash-newline joins), glob characters
/// noted, a leading `~` or `~/` made the home directory (`~user`, `~+`, `~-` are not fixed).
fn bare(text: &str, glob: &mut bool, first: bool) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    if first && let Some(after) = text.strip_prefix('~') {
        if !(after.is_empty() || after.starts_with('/')) {
            return None;
        }
        out.push_str(&std::env::var("HOME").ok()?);
        rest = after;
    }
    if braces(rest) {
        return None;
    }
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(escaped) => out.push(escaped),
            },
            '*' | '?' | '[' => {
                *glob = true;
                out.push(c);
            }
            '$' | '`' => return None,
            _ => out.push(c),
        }
    }
    Some(out)
}

/// The inside of `"…"` with only literal text: `\` escapes `$`, `` ` ``, `"`, `\` and newline.
fn double_quoted(inner: &str) -> String {
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next @ ('$' | '`' | '"' | '\\')) => {
                    out.push(next);
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The inside of `$'…'` with its escapes decoded; `None` for an escape not modelled.
fn ansi_c(inner: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = chars.next()?;
        let simple = match escaped {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(escaped),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (radix, max) = match escaped {
            'x' => (16, 2),
            'u' => (16, 4),
            'U' => (16, 8),
            '0'..='7' => (8, 2),
            _ => return None,
        };
        let mut digits = String::new();
        if radix == 8 {
            digits.push(escaped);
        }
        while digits.len() < max + usize::from(radix == 8)
            && chars.peek().is_some_and(|d| d.is_digit(radix))
        {
            digits.push(chars.next()?);
        }
        let code = u32::from_str_radix(&digits, radix).ok()?;
        out.push(char::from_u32(code)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(line, None).unwrap();
        let command = tree.root_node().named_child(0).unwrap();
        let mut cursor = command.walk();
        command
            .named_children(&mut cursor)
            .map(|n| word(n, line))
            .collect()
    }

    fn values(line: &str) -> Vec<Option<String>> {
        words(line).into_iter().map(|w| w.value).collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        let home = std::env::var("HOME").unwrap();
        assert_eq!(
            values(r#"'rm' "-rf" \x $'\x72m\n' "a;b" ~/y r"m" ~"#),
            [
                Some("rm".into()),
                Some("-rf".into()),
                Some("x".into()),
                Some("rm\n".into()),
                Some("a;b".into()),
                Some(format!("{home}/y")),
                Some("rm".into()),
                Some(home),
            ]
        );
    }

    #[test]
    fn computed_words_have_no_value() {
        assert_eq!(
            values(r#"echo $x "$x" $(id) {a,b} x{1..2} ~root/x ${y} $'\c'"#)[1..],
            [None, None, None, None, None, None, None, None]
        );
        let globbed = words("ls *.rs a? {}");
        assert!(globbed[1].glob && globbed[2].glob);
        assert_eq!(globbed[3].plain(), Some("{}"));
    }
}
