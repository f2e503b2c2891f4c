//! Programs that run other programs, or write files, through their arguments (`git -c
//! core.pager=…`, `find -exec`, `rg --pre`, `sed`'s `e` and `w`, `awk`'s `system()`, `tar
//! --to-command` …): one table, so an allow rule for the program never allows what it runs.

use super::commands::part_after;
use super::word::Word;
use super::{Access, FileUse, Hidden, Line};

/// What an argument makes the program do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Runs code Tandem cannot see: the line needs a catch-all rule, or asks.
    Runs,
    /// Writes the file named by the option's value (checked like a redirect).
    Writes,
    /// Writes files the line does not name.
    WritesUnseen,
}

/// One entry: for `programs` (a `subcommand` of them when given), the option `flag` (as a
/// word, `--flag=value`, or a short flag with its value glued on) has `effect`.
pub struct Entry {
    pub programs: &'static [&'static str],
    pub subcommand: Option<&'static str>,
    pub flag: &'static str,
    pub effect: Effect,
}

const fn entry(programs: &'static [&'static str], flag: &'static str, effect: Effect) -> Entry {
    Entry {
        programs,
        subcommand: None,
        flag,
        effect,
    }
}

const fn sub(
    programs: &'static [&'static str],
    subcommand: &'static str,
    flag: &'static str,
    effect: Effect,
) -> Entry {
    Entry {
        programs,
        subcommand: Some(subcommand),
        flag,
        effect,
    }
}

const GIT: &[&str] = &["git"];
const AWK: &[&str] = &["awk", "gawk", "mawk", "nawk", "busybox-awk"];
const TAR: &[&str] = &["tar", "gtar", "bsdtar"];
const MAKE: &[&str] = &["make", "gmake"];
const LESS: &[&str] = &["less", "more", "most"];
use Effect::{Runs, Writes, WritesUnseen};

/// Options that run or write, by program. Each has a test in `tests.rs`.
pub const TABLE: &[Entry] = &[
    entry(GIT, "--config-env", Runs),
    entry(GIT, "--exec-path", Runs),
    entry(GIT, "--upload-pack", Runs),
    entry(GIT, "--receive-pack", Runs),
    entry(GIT, "--exec", Runs),
    entry(GIT, "--ext-diff", Runs),
    entry(GIT, "--open-files-in-pager", Runs),
    entry(GIT, "--output", Writes),
    entry(GIT, "--output-directory", Writes),
    sub(GIT, "grep", "-O", Runs),
    sub(GIT, "clone", "-u", Runs),
    sub(GIT, "ls-remote", "-u", Runs),
    sub(GIT, "archive", "-o", Writes),
    sub(GIT, "format-patch", "-o", Writes),
    sub(GIT, "rebase", "-x", Runs),
    sub(GIT, "difftool", "-x", Runs),
    sub(GIT, "difftool", "--extcmd", Runs),
    sub(GIT, "send-email", "--to-cmd", Runs),
    sub(GIT, "send-email", "--cc-cmd", Runs),
    entry(&["find"], "-fls", Writes),
    entry(&["rg"], "--pre", Runs),
    entry(&["sed", "gsed"], "-f", Runs),
    entry(&["sed", "gsed"], "--file", Runs),
    entry(AWK, "-f", Runs),
    entry(AWK, "--file", Runs),
    entry(AWK, "-i", Runs),
    entry(AWK, "--include", Runs),
    entry(AWK, "-l", Runs),
    entry(AWK, "--load", Runs),
    entry(AWK, "-E", Runs),
    entry(AWK, "--exec", Runs),
    entry(&["sort"], "--compress-program", Runs),
    entry(TAR, "--to-command", Runs),
    entry(TAR, "--checkpoint-action", Runs),
    entry(TAR, "--use-compress-program", Runs),
    entry(TAR, "-I", Runs),
    entry(TAR, "--info-script", Runs),
    entry(TAR, "--new-volume-script", Runs),
    entry(TAR, "-F", Runs),
    entry(TAR, "--rsh-command", Runs),
    entry(TAR, "--rmt-command", Runs),
    entry(LESS, "-k", Runs),
    entry(LESS, "--lesskey-file", Runs),
    entry(LESS, "--lesskey-src", Runs),
    entry(&["zip"], "-TT", Runs),
    entry(&["zip"], "--unzip-command", Runs),
    entry(MAKE, "-f", Runs),
    entry(MAKE, "--file", Runs),
    entry(MAKE, "--makefile", Runs),
    entry(MAKE, "-C", Runs),
    entry(MAKE, "--directory", Runs),
    entry(MAKE, "--eval", Runs),
    entry(MAKE, "-E", Runs),
    entry(&["ssh", "scp", "sftp"], "-o", Runs),
    entry(&["ssh", "scp", "sftp"], "-F", Runs),
    entry(&["ssh"], "-L", Runs),
    entry(&["rsync"], "-e", Runs),
    entry(&["rsync"], "--rsh", Runs),
    entry(&["rsync"], "--rsync-path", Runs),
    entry(&["curl"], "-o", Writes),
    entry(&["curl"], "--output", Writes),
    entry(&["curl"], "-K", Runs),
    entry(&["curl"], "--config", Runs),
    entry(&["curl"], "-O", WritesUnseen),
    entry(&["curl"], "--remote-name", WritesUnseen),
    entry(&["wget"], "-O", Writes),
    entry(&["wget"], "--output-document", Writes),
    entry(&["wget"], "-e", Runs),
    entry(&["wget"], "--execute", Runs),
    entry(&["script"], "-c", Runs),
    entry(&["script"], "--command", Runs),
    entry(&["gdb"], "-ex", Runs),
    entry(&["gdb"], "-x", Runs),
    entry(&["nc", "ncat", "netcat"], "-e", Runs),
    entry(&["nc", "ncat", "netcat"], "-c", Runs),
    entry(&["ncat"], "--exec", Runs),
    entry(&["ncat"], "--sh-exec", Runs),
    entry(&["ncat"], "--lua-exec", Runs),
    entry(&["patch"], "-o", Writes),
    entry(&["patch"], "--output", Writes),
];

/// Programs whose every use runs code the line does not show: editors (their commands and the
/// files' modelines), wrappers that start a command Tandem does not read through, and tools
/// that run jobs they are given.
const ALWAYS_RUNS: &[&str] = &[
    "vim",
    "vi",
    "nvim",
    "ex",
    "view",
    "gvim",
    "vimdiff",
    "rvim",
    "emacs",
    "emacsclient",
    "nano",
    "ed",
    "watch",
    "strace",
    "ltrace",
    "valgrind",
    "flock",
    "chroot",
    "unshare",
    "nsenter",
    "systemd-run",
    "firejail",
    "taskset",
    "chrt",
    "prlimit",
    "numactl",
    "cgexec",
    "parallel",
    "entr",
    "expect",
    "tmux",
    "screen",
    "at",
    "batch",
    "crontab",
    "run-parts",
];

/// `git -c key=value` keys that change only how output looks.
const HARMLESS_GIT_CONFIG: &[&str] = &[
    "color.",
    "core.quotepath=",
    "core.abbrev=",
    "user.name=",
    "user.email=",
    "init.defaultbranch=",
    "advice.",
    "log.date=",
    "log.decorate=",
    "column.ui=",
];

/// Adds what `name`'s arguments make it run or write.
pub(super) fn check(name: &str, args: &[Word], line: &mut Line) {
    let runs = |what: String, line: &mut Line| line.hidden.push(Hidden::Argument(what));
    if ALWAYS_RUNS.contains(&name) {
        runs(name.to_owned(), line);
        return;
    }
    let subcommand = subcommand(name, args);
    for (index, arg) in args.iter().enumerate() {
        let Some(text) = arg.value.as_deref() else {
            continue;
        };
        for entry in TABLE {
            if !entry.programs.contains(&name)
                || entry.subcommand.is_some_and(|s| Some(s) != subcommand)
            {
                continue;
            }
            let Some(value) = option_value(entry.flag, arg, args.get(index + 1)) else {
                continue;
            };
            match entry.effect {
                Effect::Runs => runs(format!("{name} {}", entry.flag), line),
                Effect::Writes => line.files.push(FileUse {
                    word: value,
                    access: Access::Write,
                }),
                Effect::WritesUnseen => unseen_write(line),
            }
        }
        let before_subcommand =
            subcommand.is_none_or(|s| args[..index].iter().all(|a| a.text() != s) && text != s);
        if name == "git" && text == "-c" && before_subcommand {
            let harmless = args
                .get(index + 1)
                .and_then(|v| v.value.as_deref())
                .is_some_and(|v| {
                    let v = v.to_ascii_lowercase();
                    HARMLESS_GIT_CONFIG.iter().any(|k| v.starts_with(k))
                });
            if !harmless {
                runs("git -c".to_owned(), line);
            }
        }
        if LESS.contains(&name) && text.starts_with('+') {
            runs(format!("{name} +…"), line);
        }
        if MAKE.contains(&name) && !text.starts_with('-') && text.contains('=') {
            runs(
                format!("{name} {}", text.split('=').next().unwrap_or(text)),
                line,
            );
        }
        if name == "socat" && {
            let upper = text.to_ascii_uppercase();
            upper.contains("EXEC:") || upper.contains("SYSTEM:")
        } {
            runs("socat EXEC".to_owned(), line);
        }
    }
    if args.iter().any(|a| a.value.is_none()) && matches!(name, "git" | "tar" | "sed" | "make") {
        // An option computed at run time may be any of the above.
        runs(format!("{name} with a computed argument"), line);
    }
    match name {
        "git" => git_subcommand(subcommand, args, line),
        "sed" | "gsed" => sed(args, line),
        _ if AWK.contains(&name) => awk(args, line),
        _ if TAR.contains(&name) => tar(args, line),
        "unzip"
            if !args
                .iter()
                .any(|a| matches!(a.text(), "-l" | "-t" | "-p" | "-v" | "-Z")) =>
        {
            unseen_write(line)
        }
        "zip" => {
            if let Some(archive) = args.iter().find(|a| !a.text().starts_with('-')) {
                line.files.push(FileUse {
                    word: archive.clone(),
                    access: Access::Write,
                });
            }
        }
        "wget"
            if !args.iter().any(|a| {
                a.text().starts_with("-O") || a.text().starts_with("--output-document")
            }) =>
        {
            unseen_write(line)
        }
        "patch" if !args.iter().any(|a| a.text() == "--dry-run") => unseen_write(line),
        "split" => unseen_write(line),
        _ => {}
    }
}

fn unseen_write(line: &mut Line) {
    line.files.push(FileUse {
        word: Word {
            raw: "(files the command chooses)".to_owned(),
            value: None,
            glob: false,
        },
        access: Access::Write,
    });
}

/// The value of `flag` when `arg` is it: the next word, the part after `=`, or (for a short
/// flag) the rest of the word.
fn option_value(flag: &str, arg: &Word, next: Option<&Word>) -> Option<Word> {
    let text = arg.text();
    if text == flag {
        return Some(next.cloned().unwrap_or_else(|| Word::fixed("")));
    }
    if flag.starts_with("--") {
        return text
            .strip_prefix(flag)
            .filter(|rest| rest.starts_with('='))
            .map(|_| part_after(arg, flag.len() + 1));
    }
    // `-Ocmd`, `-ofile`: a short flag with its value glued on (never a long option).
    (!text.starts_with("--") && text.len() > flag.len() && text.starts_with(flag))
        .then(|| part_after(arg, flag.len()))
}

/// The first word that is not an option (or an option's value) for programs with subcommands.
fn subcommand<'a>(name: &str, args: &'a [Word]) -> Option<&'a str> {
    if name != "git" {
        return None;
    }
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let text = arg.text();
        if matches!(
            text,
            "-c" | "-C" | "--git-dir" | "--work-tree" | "--namespace"
        ) {
            index += 2;
        } else if text.starts_with('-') {
            index += 1;
        } else {
            return Some(text);
        }
    }
    None
}

/// Git subcommands that run code or write where the person did not name a file.
fn git_subcommand(subcommand: Option<&str>, args: &[Word], line: &mut Line) {
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
        "filter-branch" | "filter-repo" | "mergetool" | "difftool" => line
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
                None => unseen_write(line),
            }
        }
        _ => {}
    }
}

/// `sed`'s scripts: the `e` command and `s///e` run code, `w`/`W` and `s///w` write a file.
fn sed(args: &[Word], line: &mut Line) {
    let mut scripts: Vec<&Word> = Vec::new();
    let mut index = 0;
    let mut explicit = false;
    let mut first_operand = None;
    while let Some(arg) = args.get(index) {
        let text = arg.text();
        index += 1;
        if text == "-e" || text == "--expression" {
            explicit = true;
            if let Some(script) = args.get(index) {
                scripts.push(script);
            }
            index += 1;
        } else if text.starts_with("--expression=") || (text.starts_with("-e") && text.len() > 2) {
            explicit = true;
            scripts.push(arg);
        } else if matches!(text, "-l" | "--line-length") {
            index += 1;
        } else if !text.starts_with('-') && first_operand.is_none() {
            first_operand = Some(arg);
        }
    }
    if !explicit && let Some(script) = first_operand {
        scripts.push(script);
    }
    for script in scripts {
        let text = script.text();
        let text = text
            .strip_prefix("--expression=")
            .or_else(|| text.strip_prefix("-e"))
            .unwrap_or(text);
        if script.value.is_none() {
            line.hidden
                .push(Hidden::Argument("sed with a computed script".into()));
            continue;
        }
        match sed_script(text) {
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
    let rest_of_line = |i: usize| -> (String, usize) {
        let end = bytes[i..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |p| i + p);
        (script[i..end].trim().to_owned(), end)
    };
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
            b's' | b'y' => {
                let delimiter = *bytes.get(i + 1).ok_or("an unfinished command")?;
                if delimiter == b'\n' || delimiter == b'\\' {
                    return Err("an unusual delimiter");
                }
                i = skip_delimited(bytes, i + 2, delimiter).ok_or("an unfinished command")?;
                i = skip_delimited(bytes, i, delimiter).ok_or("an unfinished command")?;
                if b == b's' {
                    while let Some(flag) = bytes.get(i) {
                        match flag {
                            b'e' => return Err("s///e"),
                            b'w' => {
                                let (file, end) = rest_of_line(i + 1);
                                files.push(file);
                                i = end;
                                break;
                            }
                            b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' => i += 1,
                            _ => break,
                        }
                    }
                }
            }
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
fn awk(args: &[Word], line: &mut Line) {
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
fn tar(args: &[Word], line: &mut Line) {
    let mut modes = String::new();
    let mut archive = None;
    for (index, arg) in args.iter().enumerate() {
        let text = arg.text();
        let bundled = index == 0 && !text.starts_with('-');
        if bundled || (text.starts_with('-') && !text.starts_with("--")) {
            let flags = text.trim_start_matches('-');
            modes.push_str(flags);
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
        unseen_write(line);
    } else if modes.contains(['c', 'r', 'u', 'A']) {
        match archive {
            Some(file) if file.text() != "-" => line.files.push(FileUse {
                word: file.clone(),
                access: Access::Write,
            }),
            Some(_) => {}
            None => unseen_write(line),
        }
    }
}
