//! A conservative lexical pass over the raw line, independent of the grammar: every place bash
//! could run code or expand, and every quoted stretch that hides such places, as bash reads them.

/// What bash does at a place the scan found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteKind {
    /// `` ` `` opening a command substitution.
    Backtick,
    /// `$(` opening a command substitution.
    Substitution,
    /// `<(` or `>(`: a process substitution.
    Process,
    /// `$((` or `$[`: arithmetic expansion.
    Arithmetic,
    /// `((` opening an arithmetic command (or nested subshells).
    ArithmeticCommand,
    /// `${`: a parameter expansion, whose operands may hold any of the above.
    Parameter,
    /// `NAME=` at the start of a command, `NAME` written like an environment variable.
    Assignment,
    /// `for NAME` / `select NAME`, `NAME` written like an environment variable.
    LoopVariable,
}

/// A stretch bash does not expand in; the parse must agree on exactly where it starts and ends,
/// or the sites it hides may be live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteKind {
    /// `'…'`
    Single,
    /// `$'…'`
    AnsiC,
    /// `# …` to the end of the line.
    Comment,
}

/// One place found: `start` is the byte where it begins; `end` (for quotes) where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site<K> {
    pub kind: K,
    pub start: usize,
    pub end: usize,
}

/// A here-document as bash reads it: where its body runs (to the start of its terminator
/// line) and whether the body is expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HereDoc {
    pub body_start: usize,
    pub body_end: usize,
    pub expands: bool,
}

/// What the scan found.
#[derive(Debug, Default)]
pub struct Scan {
    pub sites: Vec<Site<SiteKind>>,
    pub quotes: Vec<Site<QuoteKind>>,
    pub heredocs: Vec<HereDoc>,
    /// A quote, substitution or expansion that is never closed.
    pub unterminated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Commands: quotes, comments and here-documents are live. `closer` ends it (`)`, `` ` ``).
    Commands(Option<u8>),
    Double,
    /// Inside `${…}`: every substitution is live, quotes only hide the closing brace.
    Parameter,
    /// Inside `$((…))`, counting nested parentheses.
    Arithmetic(usize),
    /// A here-document body: only `$` and `` ` `` are special.
    Body,
}

/// Where the scan stands among a command's words.
#[derive(Debug, Default)]
struct Position {
    /// The next word may name a command (or be an assignment before one).
    command_start: bool,
    /// Inside an assignment's word: the next word may still start the command.
    assignment: bool,
    /// Inside `export`/`declare`/…: every word may be an assignment.
    declaring: bool,
}

struct Scanner<'a> {
    bytes: &'a [u8],
    scan: Scan,
    pending: Vec<Pending>,
}

/// A here-document whose body starts after the current line.
struct Pending {
    delimiter: Vec<u8>,
    strip_tabs: bool,
    expands: bool,
}

/// Scans `line`.
pub fn scan(line: &str) -> Scan {
    let mut scanner = Scanner {
        bytes: line.as_bytes(),
        scan: Scan::default(),
        pending: Vec::new(),
    };
    let end = scanner.run(0, line.len(), Context::Commands(None));
    if end < line.len() {
        scanner.scan.unterminated = true;
    }
    scanner.scan
}

/// A name written like an environment variable (`PATH`, `LD_PRELOAD`, `GIT_DIR`).
pub fn environment_like(name: &str) -> bool {
    !name.is_empty()
        && name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn name_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(bytes.len())
}

impl Scanner<'_> {
    fn at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    fn starts(&self, i: usize, text: &str) -> bool {
        self.bytes[i.min(self.bytes.len())..].starts_with(text.as_bytes())
    }

    fn site(&mut self, kind: SiteKind, start: usize) {
        self.scan.sites.push(Site {
            kind,
            start,
            end: start,
        });
    }

    /// Scans from `i` in `context` until the context closes; returns the byte after its
    /// closer, or `limit` when it never closes.
    fn run(&mut self, mut i: usize, limit: usize, context: Context) -> usize {
        let mut at = Position::default();
        while i < limit {
            let b = self.bytes[i];
            // Escapes, substitutions and expansions work in every context.
            if b == b'\\' {
                i += 2;
                at.command_start = false;
                continue;
            }
            if b == b'`' {
                if context == Context::Commands(Some(b'`')) {
                    return i + 1;
                }
                self.site(SiteKind::Backtick, i);
                i = self.nested(i + 1, limit, Context::Commands(Some(b'`')));
                at.command_start = false;
                continue;
            }
            if b == b'$' {
                i = self.dollar(i, limit, context).unwrap_or(i + 1);
                at.command_start = false;
                continue;
            }
            match context {
                Context::Body => i += 1,
                Context::Double => {
                    if b == b'"' {
                        return i + 1;
                    }
                    i += 1;
                }
                Context::Parameter => match b {
                    b'}' => return i + 1,
                    b'"' => i = self.nested(i + 1, limit, Context::Double),
                    b'\'' => {
                        // Quotes here may or may not quote (it depends on the operator and
                        // on outer double quotes): scan inside as if live, skip the brace.
                        let close = self.find(i + 1, limit, b'\'');
                        self.run(i + 1, close, Context::Body);
                        i = close + 1;
                    }
                    b'<' | b'>' if self.at(i + 1) == b'(' => {
                        self.site(SiteKind::Process, i);
                        i = self.nested(i + 2, limit, Context::Commands(Some(b')')));
                    }
                    _ => i += 1,
                },
                Context::Arithmetic(depth) => match b {
                    b'(' => i = self.nested(i + 1, limit, Context::Arithmetic(depth + 1)),
                    b')' => return i + 1 + usize::from(depth == 0 && self.at(i + 1) == b')'),
                    _ => i += 1,
                },
                Context::Commands(closer) => {
                    if Some(b) == closer {
                        return i + 1;
                    }
                    i = self.command_byte(i, limit, &mut at);
                }
            }
        }
        limit
    }

    /// Scans a nested context from `i`; marks the scan unterminated when it runs off the end.
    fn nested(&mut self, i: usize, limit: usize, context: Context) -> usize {
        let end = self.run(i, limit, context);
        let closed = end > i && end <= limit && {
            let last = self.bytes[end - 1];
            match context {
                Context::Commands(Some(c)) => last == c,
                Context::Double => last == b'"',
                Context::Parameter => last == b'}',
                Context::Arithmetic(_) => last == b')',
                _ => true,
            }
        };
        if !closed {
            self.scan.unterminated = true;
        }
        end
    }

    /// The first `quote` at or after `i` (or `limit`), marking an unterminated quote.
    fn find(&mut self, i: usize, limit: usize, quote: u8) -> usize {
        match self.bytes[i.min(limit)..limit]
            .iter()
            .position(|b| *b == quote)
        {
            Some(p) => i + p,
            None => {
                self.scan.unterminated = true;
                limit
            }
        }
    }

    /// `$` at `i`: the expansion it opens, scanned; `None` when it opens nothing.
    fn dollar(&mut self, i: usize, limit: usize, context: Context) -> Option<usize> {
        match self.at(i + 1) {
            b'(' if self.at(i + 2) == b'(' => {
                self.site(SiteKind::Arithmetic, i);
                Some(self.nested(i + 3, limit, Context::Arithmetic(0)))
            }
            b'(' => {
                self.site(SiteKind::Substitution, i);
                Some(self.nested(i + 2, limit, Context::Commands(Some(b')'))))
            }
            b'[' => {
                self.site(SiteKind::Arithmetic, i);
                let close = self.find(i + 2, limit, b']');
                self.run(i + 2, close, Context::Body);
                Some(close + 1)
            }
            b'{' => {
                self.site(SiteKind::Parameter, i);
                Some(self.nested(i + 2, limit, Context::Parameter))
            }
            b'\'' if matches!(context, Context::Commands(_) | Context::Parameter) => {
                let end = self.ansi_c_end(i + 2, limit);
                self.scan.quotes.push(Site {
                    kind: QuoteKind::AnsiC,
                    start: i,
                    end,
                });
                Some(end)
            }
            b'"' if matches!(context, Context::Commands(_) | Context::Parameter) => {
                Some(self.nested(i + 2, limit, Context::Double))
            }
            // `$$`, `$#`, `$'` in double quotes …: one special parameter or a literal `$`.
            b'$' | b'#' | b'?' | b'!' | b'-' | b'*' | b'@' => Some(i + 2),
            _ => None,
        }
    }

    /// The byte after the `'` closing a `$'…'` whose inside starts at `i`.
    fn ansi_c_end(&mut self, mut i: usize, limit: usize) -> usize {
        while i < limit {
            match self.bytes[i] {
                b'\\' => i += 2,
                b'\'' => return i + 1,
                _ => i += 1,
            }
        }
        self.scan.unterminated = true;
        limit
    }

    /// One byte of command text at `i`; returns where to go on.
    fn command_byte(&mut self, i: usize, limit: usize, at: &mut Position) -> usize {
        let b = self.bytes[i];
        let word_start = i == 0 || b" \t\n;&|()<>".contains(&self.bytes[i - 1]);
        let command_start = std::mem::take(&mut at.command_start);
        match b {
            b'\'' => {
                let close = self.find(i + 1, limit, b'\'');
                let end = (close + 1).min(limit);
                self.scan.quotes.push(Site {
                    kind: QuoteKind::Single,
                    start: i,
                    end,
                });
                end
            }
            b'"' => self.nested(i + 1, limit, Context::Double),
            b'#' if word_start => {
                let end = self.bytes[i..limit]
                    .iter()
                    .position(|c| *c == b'\n')
                    .map_or(limit, |p| i + p);
                self.scan.quotes.push(Site {
                    kind: QuoteKind::Comment,
                    start: i,
                    end,
                });
                end
            }
            b'<' | b'>' if self.at(i + 1) == b'(' => {
                self.site(SiteKind::Process, i);
                self.nested(i + 2, limit, Context::Commands(Some(b')')))
            }
            b'<' if self.starts(i, "<<<") => i + 3,
            b'<' if self.at(i + 1) == b'<' => self.heredoc_operator(i + 2, limit),
            b'(' if self.at(i + 1) == b'(' && command_start => {
                self.site(SiteKind::ArithmeticCommand, i);
                self.nested(i + 2, limit, Context::Arithmetic(0))
            }
            b'(' => {
                let end = self.nested(i + 1, limit, Context::Commands(Some(b')')));
                at.command_start = true;
                end
            }
            b'\n' => {
                *at = Position {
                    command_start: true,
                    ..Position::default()
                };
                self.heredoc_bodies(i + 1, limit)
            }
            b';' | b'&' | b'|' | b'{' | b'!' => {
                *at = Position {
                    command_start: true,
                    ..Position::default()
                };
                i + 1
            }
            b' ' | b'\t' => {
                at.command_start = command_start || at.assignment || at.declaring;
                at.assignment = false;
                i + 1
            }
            _ if word_start && (command_start || at.declaring) => self.command_word(i, limit, at),
            _ => i + 1,
        }
    }

    /// A word where a command may start: an assignment, a keyword, or the command's name.
    fn command_word(&mut self, i: usize, limit: usize, at: &mut Position) -> usize {
        let rest = &self.bytes[i..limit];
        let name = name_len(rest);
        let word = std::str::from_utf8(&rest[..name]).unwrap_or_default();
        let after = &rest[name..];
        if name > 0
            && (after.starts_with(b"=") || after.starts_with(b"+=") || after.starts_with(b"["))
        {
            if environment_like(word) {
                self.site(SiteKind::Assignment, i);
            }
            at.assignment = true;
            return i + name;
        }
        let blank = after.starts_with(b" ") || after.starts_with(b"\t");
        if matches!(word, "for" | "select") && blank {
            let spaces = after
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t'))
                .count();
            let variable_at = i + name + spaces;
            let variable = name_len(&self.bytes[variable_at..limit]);
            let text = std::str::from_utf8(&self.bytes[variable_at..variable_at + variable])
                .unwrap_or_default();
            if environment_like(text) {
                self.site(SiteKind::LoopVariable, variable_at);
            }
            return variable_at + variable;
        }
        at.declaring |= matches!(
            word,
            "export" | "declare" | "typeset" | "local" | "readonly"
        );
        // After these keywords a command (or its assignments) may follow; after a program
        // such as `env` or `make`, `NAME=value` is an argument, not an assignment.
        at.command_start = matches!(
            word,
            "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "time"
        );
        i + name.max(1)
    }

    /// After `<<`: records the here-document whose body follows the line.
    fn heredoc_operator(&mut self, mut i: usize, limit: usize) -> usize {
        let strip_tabs = self.at(i) == b'-';
        if strip_tabs {
            i += 1;
        }
        while i < limit && matches!(self.bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let mut delimiter = Vec::new();
        let mut expands = true;
        while i < limit && !b" \t\n;&|()<>".contains(&self.bytes[i]) {
            match self.bytes[i] {
                quote @ (b'\'' | b'"') => {
                    expands = false;
                    let close = self.find(i + 1, limit, quote);
                    delimiter.extend_from_slice(&self.bytes[i + 1..close]);
                    i = close + 1;
                }
                b'\\' => {
                    expands = false;
                    if let Some(c) = self.bytes.get(i + 1) {
                        delimiter.push(*c);
                    }
                    i += 2;
                }
                b'$' if self.at(i + 1) == b'\'' || self.at(i + 1) == b'"' => {
                    i += 1;
                }
                c => {
                    delimiter.push(c);
                    i += 1;
                }
            }
        }
        self.pending.push(Pending {
            delimiter,
            strip_tabs,
            expands,
        });
        i.min(limit)
    }

    /// At the start of a line: the bodies of the here-documents opened on the line before.
    fn heredoc_bodies(&mut self, mut i: usize, limit: usize) -> usize {
        for pending in std::mem::take(&mut self.pending) {
            let body_start = i;
            let mut body_end = limit;
            let mut next = limit;
            let mut line_start = i;
            while line_start < limit {
                let line_end = self.bytes[line_start..limit]
                    .iter()
                    .position(|c| *c == b'\n')
                    .map_or(limit, |p| line_start + p);
                let mut text = &self.bytes[line_start..line_end];
                let mut tabs = 0;
                if pending.strip_tabs {
                    tabs = text.iter().take_while(|c| **c == b'\t').count();
                    text = &text[tabs..];
                }
                if text == pending.delimiter.as_slice() {
                    // `<<-`: the closing line's leading tabs are stripped like the body's.
                    body_end = line_start + tabs;
                    next = (line_end + 1).min(limit);
                    break;
                }
                line_start = line_end + 1;
            }
            if pending.expands {
                self.run(body_start, body_end, Context::Body);
            }
            self.scan.heredocs.push(HereDoc {
                body_start,
                body_end,
                expands: pending.expands,
            });
            i = next;
        }
        i
    }
}
