//! Programs whose own language runs code or writes files: git's subcommands, sed scripts (`e`,
//! `s///e`, `w`), awk programs (`system()`, pipes, `print >`) and tar's modes, read closely
//! enough to tell their harmless uses from the rest.

use super::word::Word;
use super::{Access, FileUse, Hidden, Line};

/// Git subcommands that run code or write where the person did not name a file.
pub(super) fn git_subcommand(subcommand: Option<&str>, args: &[Word], line: &mut Line) {
    let Some(subcommand) = subcommand else {
        return;
    };
    let after: Vec<&Word> = args
        .iter()
        .skip_while(|a| a.text() != subcommand)
        .skip(1)
        .collect();
    let first = after.first().map(|w| w.text());
    match subcommand {
        "submodule" if after.iter().any(|a| a.text() == "foreach") => line
            .hidden
            .push(Hidden::Argument("git submodule foreach".into())),
        "bisect" if first == Some("run") => {
            line.hidden.push(Hidden::Argument("git bisect run".into()))
        }
        "init" | "bundle" => {
            // `git init DIR` makes a repository there; `git bundle create FILE` writes one.
            let operands: Vec<&&Word> = after
                .iter()
                .filter(|a| !a.text().starts_with('-') && a.text() != "create")
                .collect();
            if let Some(target) = operands.first() {
                line.files.push(FileUse {
                    word: (**target).clone(),
                    access: Access::Write,
                });
            }
        }
        "filter-branch" | "filter-repo" | "mergetool" | "difftool" | "instaweb" | "daemon" => line
            .hidden
            .push(Hidden::Argument(format!("git {subcommand}"))),
        "config" => {
            let reads = after.iter().any(|a| {
                a.text().starts_with("--get")
                    || matches!(a.text(), "-l" | "--list" | "--show-origin" | "--show-scope")
            }) || matches!(first, Some("get" | "list"))
                || after.iter().filter(|a| !a.text().starts_with('-')).count() < 2;
            if !reads {
                line.files.push(FileUse {
                    word: Word::fixed(".git/config"),
                    access: Access::Write,
                });
            }
        }
        "worktree" if first == Some("add") => {
            if let Some(path) = after.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                line.files.push(FileUse {
                    word: (*path).clone(),
                    access: Access::Write,
                });
            }
        }
        "clone" => {
            let operands: Vec<&&Word> = after
                .iter()
                .filter(|a| !a.text().starts_with('-'))
                .collect();
            match operands.get(1) {
                Some(dir) => line.files.push(FileUse {
                    word: (**dir).clone(),
                    access: Access::Write,
                }),
                None => line.write_unseen(),
            }
        }
        _ => {}
    }
}

/// `sed`'s scripts: the `e` command and `s///e` run code, `w`/`W` and `s///w` write a file.
/// Options are read as GNU sed reads them: `-e` alone, glued (`-es/a/b/`) or last in a bundle
/// (`-ne script`, `-nes/a/b/e`), and any prefix of `--expression` (`--expr=…`).
pub(super) fn sed(args: &[Word], line: &mut Line) {
    let mut scripts: Vec<Word> = Vec::new();
    let mut index = 0;
    let mut explicit = false;
    let mut first_operand = None;
    while let Some(arg) = args.get(index) {
        let text = arg.text();
        index += 1;
        if let Some(long) = text.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, glued) = match long.split_once('=') {
                Some((name, _)) => (name, Some(arg.after(2 + name.len() + 1))),
                None => (long, None),
            };
            if "expression".starts_with(name) {
                explicit = true;
                match glued {
                    Some(script) => scripts.push(script),
                    None => {
                        scripts.extend(args.get(index).cloned());
                        index += 1;
                    }
                }
            } else if "line-length".starts_with(name) && glued.is_none() {
                index += 1;
            }
        } else if let Some(bundle) = text.strip_prefix('-').filter(|b| !b.is_empty()) {
            // Letters until one that takes a value: `e` (the script), `l` (a number); `i`
            // takes the rest as its suffix.
            for (at, letter) in bundle.char_indices() {
                let rest = &bundle[at + 1..];
                match letter {
                    'e' => {
                        explicit = true;
                        if rest.is_empty() {
                            scripts.extend(args.get(index).cloned());
                            index += 1;
                        } else {
                            scripts.push(arg.after(1 + at + 1));
                        }
                        break;
                    }
                    'l' => {
                        index += usize::from(rest.is_empty());
                        break;
                    }
                    'i' => break,
                    _ => {}
                }
            }
        } else if first_operand.is_none() {
            first_operand = Some(arg.clone());
        }
    }
    if !explicit && let Some(script) = first_operand {
        scripts.push(script);
    }
    for script in scripts {
        if script.value.is_none() {
            line.hidden
                .push(Hidden::Argument("sed with a computed script".into()));
            continue;
        }
        match sed_script(script.text()) {
            Ok(files) => {
                for file in files {
                    line.files.push(FileUse {
                        word: Word::fixed(&file),
                        access: Access::Write,
                    });
                }
            }
            Err(what) => line.hidden.push(Hidden::Argument(format!("sed {what}"))),
        }
    }
}

/// The files a sed script writes, or what makes it unreadable (`e`, `s///e`, an unknown form).
fn sed_script(script: &str) -> Result<Vec<String>, &'static str> {
    let bytes = script.as_bytes();
    let mut files = Vec::new();
    let mut i = 0;
    let rest_of_line = |i: usize| rest_of_line(script, i);
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b' ' | b'\t' | b'\n' | b';' | b'{' | b'}' | b'!' | b',' | b'$' | b'+' | b'~' => i += 1,
            b'0'..=b'9' => i += 1,
            b'/' | b'\\' => {
                // An address: `/re/` or `\cREc`.
                let delimiter = if b == b'\\' {
                    i += 1;
                    *bytes.get(i).ok_or("an unfinished address")?
                } else {
                    b'/'
                };
                i = skip_delimited(bytes, i + 1, delimiter).ok_or("an unfinished address")?;
                while bytes.get(i).is_some_and(|c| matches!(c, b'I' | b'M')) {
                    i += 1;
                }
            }
            b's' | b'y' => i = sed_replacement(script, i, &mut files)?,
            b'e' => return Err("e"),
            b'w' | b'W' => {
                let (file, end) = rest_of_line(i + 1);
                files.push(file);
                i = end;
            }
            b'r' | b'R' | b'a' | b'i' | b'c' | b':' | b'b' | b't' | b'T' | b'#' => {
                // Text, a file read, a label: to the end of the line (labels end at `;` too).
                let (_, end) = rest_of_line(i + 1);
                i = if matches!(b, b'b' | b't' | b'T') {
                    bytes[i + 1..end]
                        .iter()
                        .position(|c| *c == b';')
                        .map_or(end, |p| i + 1 + p)
                } else {
                    end
                };
            }
            b'q' | b'Q' | b'l' | b'L' => {
                i += 1;
                while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            b'p' | b'P' | b'd' | b'D' | b'n' | b'N' | b'g' | b'G' | b'h' | b'H' | b'x' | b'='
            | b'z' | b'F' => i += 1,
            _ => return Err("a command Tandem does not read"),
        }
    }
    Ok(files)
}

/// The rest of `script`'s line from `i` (trimmed: a file name, a label), and where it ends.
fn rest_of_line(script: &str, i: usize) -> (String, usize) {
    let end = script.as_bytes()[i..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(script.len(), |p| i + p);
    (script[i..end].trim().to_owned(), end)
}

/// An `s` or `y` command at `i`: its two parts, then (for `s`) its flags, where `e` runs the
/// result and `w file` writes one. Returns where the command ends.
fn sed_replacement(
    script: &str,
    mut i: usize,
    files: &mut Vec<String>,
) -> Result<usize, &'static str> {
    let bytes = script.as_bytes();
    let command = bytes[i];
    let delimiter = *bytes.get(i + 1).ok_or("an unfinished command")?;
    if delimiter == b'\n' || delimiter == b'\\' {
        return Err("an unusual delimiter");
    }
    i = skip_delimited(bytes, i + 2, delimiter).ok_or("an unfinished command")?;
    i = skip_delimited(bytes, i, delimiter).ok_or("an unfinished command")?;
    if command == b's' {
        while let Some(flag) = bytes.get(i) {
            match flag {
                b'e' => return Err("s///e"),
                b'w' => {
                    let (file, end) = rest_of_line(script, i + 1);
                    files.push(file);
                    return Ok(end);
                }
                b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => i += 1,
                _ => break,
            }
        }
    }
    Ok(i)
}

/// The byte after the unescaped `delimiter` that ends a part starting at `i`.
fn skip_delimited(bytes: &[u8], mut i: usize, delimiter: u8) -> Option<usize> {
    while let Some(b) = bytes.get(i) {
        if *b == b'\\' {
            i += 2;
        } else if *b == delimiter {
            return Some(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// `awk` programs: `system()`, pipes (`| getline`, `print | "cmd"`) run commands, and
/// `print > file` writes one.
pub(super) fn awk(args: &[Word], line: &mut Line) {
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let text = arg.text();
        index += 1;
        if matches!(text, "-v" | "-F") {
            index += 1;
            continue;
        }
        if text.starts_with('-') {
            continue;
        }
        if arg.value.is_none() {
            line.hidden
                .push(Hidden::Argument("awk with a computed program".into()));
        } else if let Some(what) = awk_program(text) {
            line.hidden.push(Hidden::Argument(format!("awk {what}")));
        }
        return;
    }
}

/// What in an awk program runs a command or writes a file, if anything.
fn awk_program(program: &str) -> Option<&'static str> {
    let mut code = String::new();
    let mut chars = program.chars().peekable();
    // Strings and regular expressions removed: what is left is code.
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' {
                        break;
                    }
                }
                code.push_str("\"\"");
            }
            '#' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            _ => code.push(c),
        }
    }
    if code.contains("system") || code.contains("@load") || code.contains("@include") {
        return Some("system()");
    }
    let bytes = code.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'|' && bytes.get(i + 1) != Some(&b'|') && (i == 0 || bytes[i - 1] != b'|') {
            return Some("| (a pipe to or from a command)");
        }
    }
    // `print … > file` / `printf … >> file`: a `>` at the top level of a print statement.
    let mut rest = code.as_str();
    while let Some(at) = rest.find("print") {
        let statement = &rest[at..];
        let end = statement.find([';', '}', '\n']).unwrap_or(statement.len());
        let mut depth = 0i32;
        for c in statement[..end].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '>' if depth <= 0 => return Some("print > file"),
                _ => {}
            }
        }
        rest = &statement[5..];
    }
    None
}

/// `tar`: creating writes the archive `-f` names; extracting writes what the archive holds.
pub(super) fn tar(args: &[Word], line: &mut Line) {
    let mut modes = String::new();
    let mut archive = None;
    for (index, arg) in args.iter().enumerate() {
        let text = arg.text();
        let bundled = index == 0 && !text.starts_with('-');
        if bundled || (text.starts_with('-') && !text.starts_with("--")) {
            let flags = text.trim_start_matches('-');
            modes.push_str(flags);
            // The old style (`tar cIf cmd a.tar`): letters that take the next words as values,
            // a compressor or a script among them.
            if bundled && flags.contains(['I', 'F']) {
                line.hidden
                    .push(Hidden::Argument(format!("tar {text} (a program it runs)")));
            }
            if bundled && flags.contains('g') {
                line.write_unseen();
            }
            if flags.ends_with('f') {
                archive = args.get(index + 1);
            }
        } else if let Some(long) = text.strip_prefix("--") {
            match long.split('=').next().unwrap_or(long) {
                "create" | "append" | "update" => modes.push('c'),
                "extract" | "get" => modes.push('x'),
                "file" => {
                    archive = if long.contains('=') {
                        None
                    } else {
                        args.get(index + 1)
                    };
                }
                _ => {}
            }
        }
    }
    if modes.contains('x') {
        line.write_unseen();
    } else if modes.contains(['c', 'r', 'u', 'A']) {
        match archive {
            Some(file) if file.text() != "-" => line.files.push(FileUse {
                word: file.clone(),
                access: Access::Write,
            }),
            Some(_) => {}
            None => line.write_unseen(),
        }
    }
}
