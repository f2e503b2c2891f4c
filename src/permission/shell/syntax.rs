//! The bash parse tree read for permission checks: every simple command with its prefix
//! assignments, every redirection, and every construct a static reading cannot see through.

use tree_sitter::{Node, Parser, Tree};

use super::word::{Word, word};
use super::{Access, FileUse, Hidden};

thread_local! {
    /// One parser per thread: building one and loading the grammar costs more than a parse.
    static PARSER: std::cell::RefCell<Option<Parser>> = std::cell::RefCell::new({
        let mut parser = Parser::new();
        parser.set_language(&tree_sitter_bash::LANGUAGE.into()).ok().map(|_| parser)
    });
}

/// A simple command as written: `NAME=value` prefixes, then its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCommand {
    pub prefix: Vec<String>,
    pub words: Vec<Word>,
}

/// What the parse tree shows of a line.
#[derive(Debug, Default)]
pub struct Reading {
    pub commands: Vec<RawCommand>,
    pub files: Vec<FileUse>,
    pub hidden: Vec<Hidden>,
    /// The parser found an error or a missing piece.
    pub unparsed: bool,
    /// What the lexical scan saw that the parse did not account for.
    pub unread: Vec<&'static str>,
    /// Where a `< word` redirect is really the here-string `<<< word` (see `herestrings`).
    herestrings: Vec<usize>,
}

/// Reads `line`.
pub fn read(line: &str) -> Reading {
    let mut reading = Reading::default();
    let tree: Option<Tree> =
        PARSER.with_borrow_mut(|parser| parser.as_mut().and_then(|p| p.parse(line, None)));
    let Some(tree) = tree else {
        reading.unparsed = true;
        return reading;
    };
    let root = tree.root_node();
    let errors_explained = match root.has_error() {
        false => true,
        true => herestrings(root, line)
            .map(|at| reading.herestrings = at)
            .is_some(),
    };
    reading.unparsed = !errors_explained || joins_words(root, line);
    let disagreement = super::agree::compare(root, line);
    reading.hidden.extend(disagreement.hidden);
    for (_, what) in disagreement.unexplained {
        reading.unparsed = true;
        if !reading.unread.contains(&what) {
            reading.unread.push(what);
        }
    }
    visit(root, line, &mut reading);
    reading
}

fn visit(node: Node<'_>, source: &str, out: &mut Reading) {
    let text = &source[node.byte_range()];
    match node.kind() {
        "command" => command(node, source, out),
        "declaration_command" | "unset_command" => declaration(node, source, out),
        "variable_assignment" | "variable_assignments"
            if node.parent().is_some_and(|p| {
                !matches!(
                    p.kind(),
                    "command" | "declaration_command" | "variable_assignments"
                )
            }) =>
        {
            assignments(node, source, out)
        }
        "file_redirect" => redirect(node, source, out),
        "heredoc_redirect" => {
            let mut cursor = node.walk();
            if !node
                .children(&mut cursor)
                .any(|c| c.kind() == "heredoc_end")
            {
                out.unparsed = true;
            }
        }
        "arithmetic_expansion" => arithmetic(text, out),
        "compound_statement" if node.child(0).is_some_and(|c| c.kind() == "((") => {
            arithmetic(text, out)
        }
        "c_style_for_statement" => out.hidden.push(Hidden::Arithmetic),
        "for_statement" => {
            if let Some(variable) = node.child_by_field_name("variable") {
                let name = &source[variable.byte_range()];
                if super::scan::environment_like(name) {
                    out.hidden.push(Hidden::ShellVariable(name.to_owned()));
                }
            }
        }
        "expansion" => expansion(text, out),
        "subscript" => subscript(text, out),
        "command_substitution" if text.starts_with('`') && text.contains("\\`") => {
            out.hidden.push(Hidden::NestedBackticks)
        }
        "test_command" => test(node, source, out),
        // The parser sometimes folds the next line into a word (`x⏎\\cmd`): bash would not.
        "word" if bare_newline(text) => out.unparsed = true,
        _ => {}
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, source, out);
    }
}

fn command(node: Node<'_>, source: &str, out: &mut Reading) {
    let mut raw = RawCommand {
        prefix: Vec::new(),
        words: Vec::new(),
    };
    let mut cursor = node.walk();
    let mut previous_end = None;
    for child in node.named_children(&mut cursor) {
        if let Some(end) = previous_end
            && bare_newline(&source[end..child.start_byte()])
        {
            // Two lines read as one command.
            out.unparsed = true;
        }
        previous_end = Some(child.end_byte());
        match child.kind() {
            "variable_assignment" => {
                assignment_value(child, source, out);
                raw.prefix.push(source[child.byte_range()].to_owned());
            }
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" | "comment" => {}
            _ => raw.words.push(word(child, source)),
        }
    }
    out.commands.push(raw);
}

/// `declare`, `export`, `local`, `readonly`, `typeset`, `unset`: the keyword and every
/// argument as written (assignments included).
fn declaration(node: Node<'_>, source: &str, out: &mut Reading) {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for (index, child) in node.children(&mut cursor).enumerate() {
        if index == 0 {
            words.push(Word::fixed(&source[child.byte_range()]));
            continue;
        }
        match child.kind() {
            "file_redirect" | "herestring_redirect" | "heredoc_redirect" | "comment" => {}
            "variable_assignment" => {
                assignment_value(child, source, out);
                words.push(Word::fixed(&source[child.byte_range()]));
            }
            _ => words.push(word(child, source)),
        }
    }
    out.commands.push(RawCommand {
        prefix: Vec::new(),
        words,
    });
}

/// `NAME=value` standing alone: a command of its own that changes the shell's state.
fn assignments(node: Node<'_>, source: &str, out: &mut Reading) {
    let mut prefix = Vec::new();
    let mut add = |assignment: Node<'_>, out: &mut Reading| {
        assignment_value(assignment, source, out);
        prefix.push(source[assignment.byte_range()].to_owned());
    };
    if node.kind() == "variable_assignment" {
        add(node, out);
    } else {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "variable_assignment" {
                add(child, out);
            }
        }
    }
    out.commands.push(RawCommand {
        prefix,
        words: Vec::new(),
    });
}

/// An assignment whose value the shell computes is hidden work (an integer variable's value
/// is evaluated as arithmetic, which can run a command).
fn assignment_value(node: Node<'_>, source: &str, out: &mut Reading) {
    let mut cursor = node.walk();
    let value = node
        .named_children(&mut cursor)
        .find(|c| !matches!(c.kind(), "variable_name" | "subscript"));
    if let Some(value) = value
        && value.kind() != "array"
        && word(value, source).value.is_none()
    {
        out.hidden.push(Hidden::ComputedAssignment);
    }
}

/// The grammar cannot attach a here-string to a compound command (`done <<< 1`): it reads
/// `<<` as an error and `< 1` as a redirect from a file. The starts of those redirects, when
/// that is the tree's only kind of error; None otherwise.
fn herestrings(root: Node<'_>, source: &str) -> Option<Vec<usize>> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_missing() {
            return None;
        }
        if node.is_error() {
            let (previous, next) = (node.prev_sibling()?, node.next_sibling()?);
            let compound = matches!(
                previous.kind(),
                "for_statement"
                    | "while_statement"
                    | "if_statement"
                    | "case_statement"
                    | "compound_statement"
                    | "subshell"
            );
            let redirect = next.kind() == "file_redirect"
                && next.start_byte() == node.end_byte()
                && source[next.byte_range()].starts_with('<');
            if !(compound && redirect && &source[node.byte_range()] == "<<") {
                return None;
            }
            found.push(next.start_byte());
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    Some(found)
}

fn redirect(node: Node<'_>, source: &str, out: &mut Reading) {
    if out.herestrings.contains(&node.start_byte()) {
        // A here-string's word is the command's input, not a file.
        return;
    }
    let mut operator = "";
    let mut target = None;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if !child.is_named() {
            operator = &source[child.byte_range()];
        } else if child.kind() != "file_descriptor" {
            target = Some(child);
        }
    }
    let Some(target) = target else {
        out.unparsed = true;
        return;
    };
    let target = word(target, source);
    let duplicates = matches!(operator, ">&" | "<&")
        && target
            .value
            .as_deref()
            .is_some_and(|t| t == "-" || t.chars().all(|c| c.is_ascii_digit()));
    if duplicates {
        return;
    }
    let access = if matches!(operator, "<" | "<&") {
        Access::Read
    } else {
        Access::Write
    };
    out.files.push(FileUse {
        word: target,
        access,
    });
}

/// Arithmetic on literals only is harmless; naming anything (a variable whose value may hold
/// `a[$(cmd)]`) is not.
fn arithmetic(text: &str, out: &mut Reading) {
    let inner = text
        .trim_start_matches("$((")
        .trim_start_matches("((")
        .trim_start_matches("$[")
        .trim_end_matches("))")
        .trim_end_matches(']');
    if !inner
        .chars()
        .all(|c| c.is_ascii_digit() || c.is_whitespace() || "+-*/%()<>=!&|^~?:,".contains(c))
    {
        out.hidden.push(Hidden::Arithmetic);
    }
}

/// `${…}`: indirection (`${!x}`), transformations (`${x@P}` runs a prompt expansion),
/// subscripts and substrings whose offsets are arithmetic on names.
fn expansion(text: &str, out: &mut Reading) {
    let inner = text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or(text);
    if inner.starts_with('!') {
        out.hidden.push(Hidden::Indirection);
        return;
    }
    let inner = inner
        .strip_prefix('#')
        .filter(|s| !s.is_empty())
        .unwrap_or(inner);
    let name_len = if inner.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len())
    } else if inner.starts_with(|c: char| c.is_ascii_digit()) {
        inner
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(inner.len())
    } else {
        inner.chars().next().map_or(0, char::len_utf8)
    };
    let after = &inner[name_len..];
    if after.starts_with('[') {
        subscript(after, out);
    } else if after.starts_with('@') {
        out.hidden.push(Hidden::Transformation);
    } else if let Some(range) = after.strip_prefix(':')
        && !range.starts_with(['-', '=', '+', '?'])
        && !range
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_whitespace() || c == ':' || c == '-')
    {
        out.hidden.push(Hidden::Arithmetic);
    }
}

/// `a[…]`: an index other than a literal number (or `@`/`*`) is evaluated as arithmetic.
fn subscript(text: &str, out: &mut Reading) {
    let index = text
        .split_once('[')
        .and_then(|(_, rest)| rest.rsplit_once(']'))
        .map_or("", |(index, _)| index);
    if !(index == "@"
        || index == "*"
        || (!index.is_empty() && index.chars().all(|c| c.is_ascii_digit())))
    {
        out.hidden.push(Hidden::Subscript);
    }
}

/// `[[ … ]]` and `[ … ]`: `-v`/`-R` name variables (with subscripts); the arithmetic
/// comparisons of `[[` evaluate their operands.
fn test(node: Node<'_>, source: &str, out: &mut Reading) {
    let double = node.child(0).is_some_and(|c| c.kind() == "[[");
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        if current.kind() == "test_operator" {
            let operator = &source[current.byte_range()];
            if matches!(operator, "-v" | "-R") {
                out.hidden.push(Hidden::Subscript);
            }
            let arithmetic = matches!(operator, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge");
            if double && arithmetic {
                let operands_are_numbers = current.parent().is_some_and(|p| {
                    let mut cursor = p.walk();
                    p.named_children(&mut cursor)
                        .filter(|c| c.kind() != "test_operator")
                        .all(|c| source[c.byte_range()].chars().all(|d| d.is_ascii_digit()))
                });
                if !operands_are_numbers {
                    out.hidden.push(Hidden::Arithmetic);
                }
            }
        }
        if current.kind() == "command_substitution" {
            continue;
        }
        let mut cursor = current.walk();
        stack.extend(current.children(&mut cursor));
    }
}

/// Whether `text` holds a newline no backslash escapes: a command ends there in bash.
fn bare_newline(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| {
        *b == b'\n' && bytes[..i].iter().rev().take_while(|c| **c == b'\\').count() % 2 == 0
    })
}

/// Whether a backslash-newline outside quotes joins two words into one (`r\⏎m` is `rm` to
/// bash, but two words to the parser).
fn joins_words(root: Node<'_>, line: &str) -> bool {
    let bytes = line.as_bytes();
    (1..bytes.len()).any(|i| {
        if bytes[i] != b'\n' || bytes[i - 1] != b'\\' {
            return false;
        }
        let backslashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
        let before = i.checked_sub(backslashes + 1).map(|j| bytes[j]);
        let glued = before.is_some_and(|b| !b.is_ascii_whitespace())
            && bytes.get(i + 1).is_some_and(|b| !b.is_ascii_whitespace());
        backslashes % 2 == 1 && glued && !quoted_at(root, i)
    })
}

/// Whether byte `at` lies in a quoted string, a heredoc body or a comment.
fn quoted_at(root: Node<'_>, at: usize) -> bool {
    let mut node = root.descendant_for_byte_range(at, at);
    while let Some(current) = node {
        if matches!(
            current.kind(),
            "string" | "raw_string" | "ansi_c_string" | "heredoc_body" | "comment"
        ) {
            return true;
        }
        node = current.parent();
    }
    false
}
