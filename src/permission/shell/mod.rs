//! What a bash command line will do, as far as a static reading can tell: its simple commands
//! (seen through wrappers such as `timeout` and `bash -c '…'`), the files it names or redirects
//! into, and the constructs whose effect only shows when it runs. Permission checks build on it.

mod agree;
mod always;
mod commands;
mod continuation;
mod operands;
mod programs;
mod runners;
mod scan;
mod syntax;
mod word;

use std::fmt;

pub use always::always_pattern;
pub use word::Word;

/// How a command line touches a file it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads it (`cat f`, `< f`).
    Read,
    /// Writes, creates or removes it (`> f`, `rm f`, `cp a f`).
    Write,
    /// Makes it the working directory (`cd d`).
    Enter,
    /// Reads every file beneath it (`grep -r x dir`); `hidden` when hidden and ignored
    /// files are read too (grep does, ripgrep does not unless told).
    Search { hidden: bool },
}

/// A file a line names: a command's path argument or a redirection's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUse {
    pub word: Word,
    pub access: Access,
}

/// Something the shell will do that a static reading of the line cannot see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hidden {
    /// Arithmetic that names a variable: its value can hold `a[$(cmd)]`, which runs.
    Arithmetic,
    /// An array subscript or a `-v` test, evaluated as arithmetic.
    Subscript,
    /// `${!x}` or a nameref: the name is only known when it runs.
    Indirection,
    /// `${x@P}` and other transformations (a prompt expansion runs substitutions).
    Transformation,
    /// Backticks nested with escapes, which the parser does not split.
    NestedBackticks,
    /// An assignment whose value is computed.
    ComputedAssignment,
    /// A command whose name is computed (`$cmd`, `{r,}m`, `/bin/r?`).
    ComputedCommand,
    /// An assignment to an environment or shell variable that changes later commands
    /// (`PATH`, `LD_PRELOAD`, `BASH_ENV`, `GIT_*` …).
    ShellVariable(String),
    /// A builtin that changes what later commands mean (`trap`, `alias`, `hash`, `enable` …).
    ShellState(String),
    /// Code the line hands to an interpreter it cannot read (`eval "$x"`, `source f`, `sh f`).
    Interpreter(String),
    /// A command run with privileges or options Tandem does not model (`sudo`, `env -S`).
    Wrapper(String),
    /// Arguments that come from input (`xargs`).
    InputArguments,
    /// An argument that makes a program run code (`git -c core.pager=…`, `rg --pre`, `sed e`).
    Argument(String),
    /// Shell code nested deeper than Tandem reads.
    TooDeep,
}

impl fmt::Display for Hidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Arithmetic => write!(f, "arithmetic on a variable"),
            Self::Subscript => write!(f, "an array subscript"),
            Self::Indirection => write!(f, "an indirect expansion"),
            Self::Transformation => write!(f, "a parameter transformation"),
            Self::NestedBackticks => write!(f, "nested backticks"),
            Self::ComputedAssignment => write!(f, "an assignment of a computed value"),
            Self::ComputedCommand => write!(f, "a command name computed when it runs"),
            Self::ShellVariable(name) => write!(f, "an assignment to {name}"),
            Self::ShellState(name) => write!(f, "`{name}`, which changes later commands"),
            Self::Interpreter(name) => write!(f, "code run by `{name}`"),
            Self::Wrapper(name) => write!(f, "`{name}`"),
            Self::InputArguments => write!(f, "arguments read from input"),
            Self::Argument(what) => write!(f, "`{what}`, which runs what its argument says"),
            Self::TooDeep => write!(f, "shell code nested too deep"),
        }
    }
}

/// One command the line runs, as permission rules match it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Prefix assignments, then the words (quotes removed), single-spaced.
    pub pattern: String,
    /// Other spellings that must be allowed too (`rm -f x` for `/bin/rm -f x`).
    pub also: Vec<String>,
    /// What an "always" answer may record for it: a prefix that covers no redirect, no
    /// assignment and no option; `None` when no such prefix is safe.
    pub always: Option<String>,
}

/// What a command line does, as far as it can be seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    pub commands: Vec<Command>,
    pub files: Vec<FileUse>,
    pub hidden: Vec<Hidden>,
    /// The parser did not fully understand the line.
    pub unparsed: bool,
    /// Why, where the lexical scan saw what the parse missed (`a command substitution` …).
    pub unread: Vec<&'static str>,
}

impl Line {
    /// Notes that the command writes files its arguments do not name.
    pub(crate) fn write_unseen(&mut self) {
        self.files.push(FileUse {
            word: word::Word {
                raw: "(files the command chooses)".to_owned(),
                value: None,
                glob: false,
            },
            access: Access::Write,
        });
    }

    /// Every pattern that must be allowed under `bash`, in order, without repeats.
    pub fn patterns(&self) -> Vec<String> {
        let mut patterns: Vec<String> = Vec::new();
        for command in &self.commands {
            for pattern in std::iter::once(&command.pattern).chain(&command.also) {
                if !patterns.contains(pattern) {
                    patterns.push(pattern.clone());
                }
            }
        }
        patterns
    }

    /// How much of what the line does a check can see: the one decision every caller uses.
    pub fn sight(&self) -> super::Sight {
        if self.unparsed {
            super::Sight::Unparsed
        } else if self.hidden.is_empty() {
            super::Sight::Full
        } else {
            super::Sight::Partial
        }
    }

    /// Whether the line only reads: fully seen, no file written, and every command a plain
    /// reader (`cat`, `ls`, `grep`, `git status` …). `/undo` does not name such lines among
    /// what it could not put back.
    pub fn only_reads(&self) -> bool {
        const READERS: &[&str] = &[
            "cat",
            "ls",
            "head",
            "tail",
            "wc",
            "grep",
            "egrep",
            "fgrep",
            "rg",
            "find",
            "echo",
            "printf",
            "pwd",
            "stat",
            "file",
            "du",
            "df",
            "diff",
            "cmp",
            "sort",
            "uniq",
            "cut",
            "tr",
            "tree",
            "which",
            "type",
            "date",
            "whoami",
            "id",
            "uname",
            "true",
            "false",
            "test",
            "[",
            "basename",
            "dirname",
            "realpath",
            "readlink",
            "nl",
            "less",
            "more",
            "jq",
            "cd",
            "sleep",
            "env",
            "printenv",
            "md5sum",
            "sha256sum",
        ];
        const GIT_READERS: &[&str] = &[
            "status",
            "log",
            "diff",
            "show",
            "grep",
            "ls-files",
            "rev-parse",
            "blame",
            "describe",
            "shortlog",
        ];
        self.sight() == super::Sight::Full
            && !self.commands.is_empty()
            && self.files.iter().all(|f| f.access != Access::Write)
            && self.commands.iter().all(|c| {
                let mut words = c.pattern.split_whitespace();
                match words.next() {
                    Some("git") => words.next().is_some_and(|s| GIT_READERS.contains(&s)),
                    Some(name) => READERS.contains(&name),
                    None => false,
                }
            })
    }

    /// What an "always" answer records: the commands' safe prefixes.
    pub fn always(&self) -> Vec<String> {
        let mut always: Vec<String> = Vec::new();
        for prefix in self.commands.iter().filter_map(|c| c.always.as_ref()) {
            if !always.contains(prefix) {
                always.push(prefix.clone());
            }
        }
        always
    }
}

/// How deep `bash -c '…'` and `eval '…'` strings are read.
const MAX_DEPTH: usize = 4;

/// Reads `line` as bash will run it.
pub fn analyse(line: &str) -> Line {
    let mut out = Line::default();
    analyse_into(line, 0, &mut out);
    let mut seen = Vec::new();
    out.hidden.retain(|h| {
        let new = !seen.contains(h);
        if new {
            seen.push(h.clone());
        }
        new
    });
    out
}

fn analyse_into(line: &str, depth: usize, out: &mut Line) {
    if depth > MAX_DEPTH {
        out.hidden.push(Hidden::TooDeep);
        return;
    }
    // Bash removes every backslash-newline before it reads the line: so does the reading.
    let Some(line) = continuation::joined(line) else {
        out.unparsed = true;
        out.commands.push(Command {
            pattern: line.split_whitespace().collect::<Vec<_>>().join(" "),
            also: Vec::new(),
            always: None,
        });
        return;
    };
    let line = line.as_str();
    let reading = syntax::read(line);
    out.unparsed |= reading.unparsed;
    for what in reading.unread {
        if !out.unread.contains(&what) {
            out.unread.push(what);
        }
    }
    out.hidden.extend(reading.hidden);
    out.files.extend(reading.files);
    for command in reading.commands {
        commands::interpret(command, depth, out);
    }
    if out.commands.is_empty() && !line.trim().is_empty() && reading.unparsed {
        out.commands.push(Command {
            pattern: line.split_whitespace().collect::<Vec<_>>().join(" "),
            also: Vec::new(),
            always: None,
        });
    }
}

/// The patterns a line is checked under `bash` (its simple commands, normalised).
pub fn split_commands(line: &str) -> Vec<String> {
    analyse(line).patterns()
}

#[cfg(test)]
mod tests;
