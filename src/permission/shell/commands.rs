//! What each simple command means for permissions: wrappers (`timeout`, `env`, `xargs`,
//! `find -exec`) are seen through, `bash -c` and `eval` strings are read as lines of their own,
//! builtins that change the shell are hidden work, and file commands name the files they touch.

use super::operands::{file_command, file_operands};
use super::syntax::RawCommand;
use super::word::Word;
use super::{Access, Command, FileUse, Hidden, Line, always_pattern};

/// Adds what `raw` runs to `line`.
pub(super) fn interpret(raw: RawCommand, depth: usize, line: &mut Line) {
    let RawCommand { prefix, words } = raw;
    if words.is_empty() {
        return assignments_only(&prefix, line);
    }
    let texts: Vec<&str> = words.iter().map(Word::text).collect();
    let pattern = join(&prefix, &texts);
    let Some(program) = words[0].plain() else {
        line.hidden.push(Hidden::ComputedCommand);
        line.commands.push(Command {
            pattern,
            also: Vec::new(),
            always: None,
        });
        return;
    };
    let base = program.rsplit('/').next().unwrap_or(program).to_owned();
    // The loop's own flow (`break`, `continue`) and `:` do nothing a rule could be about:
    // written plainly (no prefix, fixed words), they need none.
    if matches!(program, "break" | "continue" | ":")
        && prefix.is_empty()
        && words.iter().all(|w| w.value.is_some())
    {
        return;
    }
    let mut also = Vec::new();
    if base != program {
        let mut bare = texts.clone();
        bare[0] = &base;
        also.push(join(&prefix, &bare));
    }
    let always = (prefix.is_empty() && base == program && words.iter().all(|w| w.value.is_some()))
        .then(|| always_pattern(&texts))
        .flatten();
    line.commands.push(Command {
        pattern,
        also,
        always,
    });
    let args = &words[1..];
    super::runners::check(&base, args, line);
    match base.as_str() {
        "eval" => match fixed(args) {
            Some(code) => super::analyse_into(&code.join(" "), depth + 1, line),
            None => line.hidden.push(Hidden::Interpreter(base)),
        },
        "bash" | "sh" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "fish" | "csh" | "tcsh"
        | "busybox" => shell(&base, args, depth, line),
        "source" | "." => line.hidden.push(Hidden::Interpreter(base)),
        "sudo" | "doas" | "su" | "pkexec" | "runuser" | "coproc" => {
            line.hidden.push(Hidden::Wrapper(base))
        }
        "trap" | "alias" | "hash" | "enable" | "bind" | "complete" | "compgen" | "fc" | "shopt" => {
            line.hidden.push(Hidden::ShellState(base))
        }
        "let" => line.hidden.push(Hidden::Arithmetic),
        "declare" | "typeset" | "local" | "export" | "readonly" => declaration(args, line),
        "unset" | "read" | "mapfile" | "readarray" | "getopts" | "printf" | "wait" | "test"
        | "[" => names(&base, args, line),
        "xargs" => xargs(&prefix, args, depth, line),
        "find" => find(&prefix, args, depth, line),
        "git" => git(args, line),
        _ => match wrapped(&base, args) {
            Some(Ok(inner)) => run_wrapped(inner, prefix, args, depth, line),
            Some(Err(())) => line.hidden.push(Hidden::Wrapper(base)),
            None => file_operands(&base, args, line),
        },
    }
}

/// A line of assignments alone (`A=1 B=2`): shell variables set are hidden work.
fn assignments_only(prefix: &[String], line: &mut Line) {
    for assignment in prefix {
        let name = assignment.split(['=', '[', '+']).next().unwrap_or_default();
        if shell_variable(name) {
            line.hidden.push(Hidden::ShellVariable(name.to_owned()));
        }
    }
    if !prefix.is_empty() {
        line.commands.push(Command {
            pattern: prefix.join(" "),
            also: Vec::new(),
            always: None,
        });
    }
}

/// What a wrapper (`timeout 5 cmd`, `env A=1 cmd`) runs, read as a command of its own.
fn run_wrapped(
    inner: Wrapped,
    mut prefix: Vec<String>,
    args: &[Word],
    depth: usize,
    line: &mut Line,
) {
    line.files.extend(inner.files);
    prefix.extend(inner.assignments);
    if inner.start < args.len() {
        let raw = RawCommand {
            prefix,
            words: args[inner.start..].to_vec(),
        };
        interpret(raw, depth + 1, line);
    }
}

fn join(prefix: &[String], words: &[&str]) -> String {
    prefix
        .iter()
        .map(String::as_str)
        .chain(words.iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The values of `words` when all are fixed.
fn fixed(words: &[Word]) -> Option<Vec<String>> {
    words.iter().map(|w| w.value.clone()).collect()
}

/// An environment or shell variable whose value changes what later commands do: every name
/// without lowercase letters (`PATH`, `LD_PRELOAD`, `BASH_ENV`, `PS4`, `IFS`, `GIT_DIR` …).
fn shell_variable(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_ascii_lowercase())
}

/// `bash -c 'code'` reads `code` as a line; a shell given a script or its input runs code
/// Tandem cannot read.
fn shell(name: &str, args: &[Word], depth: usize, line: &mut Line) {
    let mut code_next = false;
    for arg in args {
        let Some(text) = arg.value.as_deref() else {
            break;
        };
        if code_next {
            super::analyse_into(text, depth + 1, line);
            return;
        }
        if text.starts_with('-') && !text.starts_with("--") && text.contains('c') {
            code_next = true;
        } else if !text.starts_with(['-', '+']) {
            break;
        }
    }
    line.hidden.push(Hidden::Interpreter(name.to_owned()));
}

fn declaration(args: &[Word], line: &mut Line) {
    for arg in args {
        let text = arg.text();
        if text.starts_with(['-', '+']) {
            if text.contains('i') {
                line.hidden.push(Hidden::Arithmetic);
            }
            if text.contains('n') {
                line.hidden.push(Hidden::Indirection);
            }
        } else if let Some((name, _)) = text.split_once('=') {
            let name = name.trim_end_matches('+');
            if name.contains('[') {
                line.hidden.push(Hidden::Subscript);
            } else if shell_variable(name) {
                line.hidden.push(Hidden::ShellVariable(name.to_owned()));
            }
        } else if text.contains('[') {
            line.hidden.push(Hidden::Subscript);
        }
    }
}

/// Builtins that take variable names: a name with a subscript is evaluated as arithmetic.
fn names(name: &str, args: &[Word], line: &mut Line) {
    let named: Vec<Word> = match name {
        "printf" => options(args, "v", "v").0,
        "wait" => options(args, "p", "p").0,
        "read" => {
            let (mut named, operands) = options(args, "adinNptu", "a");
            named.extend(operands);
            named
        }
        "mapfile" | "readarray" => {
            let (mut named, operands) = options(args, "dnOsuCc", "");
            named.extend(operands);
            named
        }
        "test" | "[" => {
            if args.iter().any(|a| matches!(a.text(), "-v" | "-R")) {
                line.hidden.push(Hidden::Subscript);
            }
            Vec::new()
        }
        _ => args.to_vec(),
    };
    if named
        .iter()
        .any(|w| w.value.is_none() || w.text().contains('['))
    {
        line.hidden.push(Hidden::Subscript);
    }
    // `read PATH`, `printf -v PATH …`, `printf -vPATH …`, `read -aPATH`, `getopts o HOME`: an
    // assignment like any other.
    if name != "unset" {
        for word in named {
            let text = word.text();
            if !text.starts_with('-') && super::scan::environment_like(text) {
                line.hidden.push(Hidden::ShellVariable(text.to_owned()));
            }
        }
    }
}

/// A builtin's options as its getopt reads them: one-letter flags bundled (`-ra`), those in
/// `valued` taking the rest of the word or the next word. Returns the values of the letters
/// in `naming`, and the operands.
fn options(args: &[Word], valued: &str, naming: &str) -> (Vec<Word>, Vec<Word>) {
    let (mut named, mut operands) = (Vec::new(), Vec::new());
    let mut index = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(index) {
        index += 1;
        let text = arg.text();
        if options_done || !text.starts_with('-') || text == "-" {
            options_done = true;
            operands.push(arg.clone());
            continue;
        }
        if text == "--" {
            options_done = true;
            continue;
        }
        for (at, letter) in text[1..].char_indices() {
            if !valued.contains(letter) {
                continue;
            }
            let value = if 1 + at + 1 < text.len() {
                arg.after(1 + at + 1)
            } else {
                index += 1;
                args.get(index - 1)
                    .cloned()
                    .unwrap_or_else(|| Word::fixed(""))
            };
            if naming.contains(letter) {
                named.push(value);
            }
            break;
        }
    }
    (named, operands)
}

/// `xargs [options] command …`: the command runs with arguments read from input.
fn xargs(prefix: &[String], args: &[Word], depth: usize, line: &mut Line) {
    line.hidden.push(Hidden::InputArguments);
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let text = arg.text();
        if !text.starts_with('-') || text == "-" {
            break;
        }
        index += 1;
        if matches!(text, "-I" | "-n" | "-P" | "-L" | "-s" | "-d" | "-E" | "-a") {
            if text == "-a"
                && let Some(file) = args.get(index)
            {
                line.files.push(FileUse {
                    word: file.clone(),
                    access: Access::Read,
                });
            }
            index += 1;
        }
    }
    if index < args.len() {
        let inner = &args[index..];
        let before = line.files.len();
        interpret(
            RawCommand {
                prefix: prefix.to_vec(),
                words: inner.to_vec(),
            },
            depth + 1,
            line,
        );
        // A file command's paths come from input too.
        let access = line.files[before..].first().map(|f| f.access).or_else(|| {
            let base = inner[0].text().rsplit('/').next().unwrap_or_default();
            file_command(base).map(|spec| spec.access)
        });
        if let Some(access) = access {
            line.files.push(FileUse {
                word: unseen("(arguments from input)"),
                access,
            });
        }
    }
}

fn unseen(raw: &str) -> Word {
    Word {
        raw: raw.to_owned(),
        value: None,
        glob: false,
    }
}

/// `find roots… expression`: the roots are read (written with `-delete`), `-exec`'s commands
/// run, `-fprint` files are written.
fn find(prefix: &[String], args: &[Word], depth: usize, line: &mut Line) {
    let first_expression = args
        .iter()
        .position(|a| a.text().starts_with(['-', '(', '!', ')']))
        .unwrap_or(args.len());
    let roots = &args[..first_expression];
    let deletes = args.iter().any(|a| a.text() == "-delete");
    let access = if deletes { Access::Write } else { Access::Read };
    if roots.is_empty() {
        line.files.push(FileUse {
            word: Word::fixed("."),
            access,
        });
    }
    for root in roots {
        line.files.push(FileUse {
            word: root.clone(),
            access,
        });
    }
    let mut index = first_expression;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.text() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[index..]
                    .iter()
                    .position(|a| matches!(a.text(), ";" | "+"))
                    .map_or(args.len(), |p| index + p);
                if end > index {
                    let raw = RawCommand {
                        prefix: prefix.to_vec(),
                        words: args[index..end].to_vec(),
                    };
                    interpret(raw, depth + 1, line);
                }
                index = end + 1;
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                if let Some(file) = args.get(index) {
                    line.files.push(FileUse {
                        word: file.clone(),
                        access: Access::Write,
                    });
                }
            }
            _ => {}
        }
    }
}

/// `git -C dir …` and `--git-dir=`/`--work-tree=` work on another directory.
fn git(args: &[Word], line: &mut Line) {
    for (index, arg) in args.iter().enumerate() {
        let text = arg.text();
        if text == "-C"
            && let Some(dir) = args.get(index + 1)
        {
            line.files.push(FileUse {
                word: dir.clone(),
                access: Access::Read,
            });
        }
        for option in ["--git-dir=", "--work-tree="] {
            if text.starts_with(option) {
                line.files.push(FileUse {
                    word: arg.after(option.len()),
                    access: Access::Read,
                });
            }
        }
        if !text.starts_with('-') {
            break;
        }
    }
}

/// Where a wrapper's command starts, the assignments and directories it adds.
struct Wrapped {
    start: usize,
    assignments: Vec<String>,
    files: Vec<FileUse>,
}

/// A wrapper's options: its flags, the options that take a value, and whether one operand
/// precedes the command; `None` for a command that is not a wrapper.
type WrapperOptions = (&'static [&'static str], &'static [&'static str], bool);

fn wrapper_options(name: &str) -> Option<WrapperOptions> {
    Some(match name {
        "command" => (&["-p"], &[], false),
        "builtin" | "nohup" | "unbuffer" => (&[], &[], false),
        "exec" => (&["-c", "-l"], &["-a"], false),
        "time" => (&["-p"], &[], false),
        "nice" => (&[], &["-n"], false),
        "timeout" => (
            &["--preserve-status", "--foreground", "-v", "--verbose"],
            &["-s", "-k"],
            true,
        ),
        "stdbuf" => (&[], &["-i", "-o", "-e"], false),
        "setsid" => (&["-f", "-w", "-c"], &[], false),
        "ionice" => (&["-t"], &["-c", "-n"], false),
        "env" => (
            &["-i", "-", "-0", "--null", "--ignore-environment"],
            &["-u"],
            false,
        ),
        _ => return None,
    })
}

/// Wrappers that run the command after their options: `Some(Err)` for an option not
/// modelled, `None` for a command that is not a wrapper.
fn wrapped(name: &str, args: &[Word]) -> Option<Result<Wrapped, ()>> {
    let (flags, valued, operand) = wrapper_options(name)?;
    let mut wrapped = Wrapped {
        start: 0,
        assignments: Vec::new(),
        files: Vec::new(),
    };
    let mut operand_pending = operand;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let Some(text) = arg.value.as_deref() else {
            return Some(Err(()));
        };
        if name == "command" && matches!(text, "-v" | "-V") {
            // `command -v x` only says what x is.
            wrapped.start = args.len();
            return Some(Ok(wrapped));
        }
        if text == "--" {
            index += 1;
            break;
        }
        if text.starts_with('-') && text != "-" || (name == "env" && text == "-") {
            if flags.contains(&text) {
                index += 1;
            } else if valued.contains(&text) {
                index += 2;
            } else if let Some(value) = text.strip_prefix("--chdir=").filter(|_| name == "env") {
                wrapped.files.push(FileUse {
                    word: Word::fixed(value),
                    access: Access::Enter,
                });
                index += 1;
            } else if name == "env" && text == "-C" {
                if let Some(dir) = args.get(index + 1) {
                    wrapped.files.push(FileUse {
                        word: dir.clone(),
                        access: Access::Enter,
                    });
                }
                index += 2;
            } else if (name == "nice" && text[1..].chars().all(|c| c.is_ascii_digit()))
                || (name == "stdbuf" && text.len() > 2 && valued.contains(&&text[..2]))
                || (text.starts_with("--") && text.contains('=') && !text.starts_with("--split"))
            {
                index += 1;
            } else {
                return Some(Err(()));
            }
            continue;
        }
        if name == "env" && text.contains('=') && !text.starts_with('=') {
            wrapped.assignments.push(arg.raw.clone());
            index += 1;
            continue;
        }
        if operand_pending {
            operand_pending = false;
            index += 1;
            continue;
        }
        break;
    }
    wrapped.start = index.min(args.len());
    Some(Ok(wrapped))
}
