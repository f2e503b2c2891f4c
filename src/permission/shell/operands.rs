//! Commands whose arguments are files (after OpenCode's list, widened to the common readers
//! and writers): which of their words are paths, and whether they are read, written or entered.

use super::word::Word;
use super::{Access, FileUse, Line};

/// How a file command treats its operands.
#[derive(Clone, Copy)]
pub(super) struct FileCommand {
    pub access: Access,
    /// Its first operand is a pattern or program, not a file (`grep pat f`, `sed s/a/b/ f`).
    program_first: bool,
}

/// Commands whose operands are files (after OpenCode's list, widened to the common readers).
pub(super) fn file_command(name: &str) -> Option<FileCommand> {
    let (access, program_first) = match name {
        "cd" | "pushd" => (Access::Enter, false),
        "rm" | "rmdir" | "unlink" | "shred" | "touch" | "mkdir" | "chmod" | "chown" | "chgrp"
        | "truncate" | "tee" | "cp" | "mv" | "ln" | "install" | "rsync" | "mkfifo" | "mknod"
        | "dd" => (Access::Write, false),
        "cat" | "tac" | "nl" | "head" | "tail" | "less" | "more" | "wc" | "sort" | "uniq"
        | "cut" | "paste" | "od" | "xxd" | "hexdump" | "strings" | "file" | "stat" | "du"
        | "ls" | "tree" | "diff" | "cmp" | "comm" | "readlink" | "realpath" | "md5sum"
        | "sha1sum" | "sha256sum" | "sha512sum" | "b2sum" | "cksum" | "base64" | "fold"
        | "column" | "split" | "zcat" | "bat" => (Access::Read, false),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "sed" | "awk" | "gawk" | "mawk"
        | "jq" | "yq" => (Access::Read, true),
        _ => return None,
    };
    Some(FileCommand {
        access,
        program_first,
    })
}

/// Options of `name` whose next word is a value that is not a file.
fn value_options(name: &str) -> &'static [&'static str] {
    match name {
        "head" | "tail" => &["-n", "-c"],
        "sort" => &["-k", "-t", "-S"],
        "cut" => &["-d", "-f", "-c", "-b"],
        "ls" => &["-I", "-w"],
        "du" => &["-d"],
        "tree" => &["-L", "-P", "-I"],
        "xxd" => &["-l", "-s", "-c", "-g"],
        "od" => &["-A", "-t", "-N", "-j"],
        "column" => &["-s", "-c"],
        "fold" | "base64" => &["-w"],
        "split" => &["-l", "-b", "-n"],
        "uniq" => &["-f", "-s", "-w"],
        "stat" => &["-c"],
        "touch" => &["-d", "-t"],
        "mkdir" => &["-m"],
        "install" => &["-m", "-o", "-g"],
        "cp" | "mv" | "ln" => &["-S"],
        "truncate" => &["-s"],
        "grep" | "egrep" | "fgrep" => &["-e", "-m", "-A", "-B", "-C", "-d", "-D"],
        "rg" => &[
            "-e", "-g", "-t", "-T", "-m", "-A", "-B", "-C", "-j", "-M", "-r", "-E",
        ],
        "sed" => &["-e", "-l"],
        "awk" | "gawk" | "mawk" => &["-v", "-F"],
        _ => &[],
    }
}

/// Options of `name` whose next word is a file, and how the command uses it.
fn path_option(name: &str, option: &str) -> Option<Access> {
    match (name, option) {
        ("sort", "-o" | "--output" | "-T") => Some(Access::Write),
        ("touch", "-r") => Some(Access::Read),
        ("cp" | "mv" | "ln" | "install", "-t") => Some(Access::Write),
        (
            "grep" | "egrep" | "fgrep" | "rg" | "sed" | "awk" | "gawk" | "mawk" | "jq" | "yq",
            "-f" | "--file",
        ) => Some(Access::Read),
        _ => None,
    }
}

/// How a file command touches its operands: written by `sed -i`, searched by a recursive
/// grep (hidden files too where the tool does not skip them), else as `default` says.
fn operand_access(name: &str, args: &[Word], default: Access) -> Access {
    let in_place = name == "sed"
        && args
            .iter()
            .any(|a| a.text().starts_with("-i") || a.text().starts_with("--in-place"));
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(&a.text()));
    let recursive = match name {
        "grep" | "egrep" | "fgrep" => {
            has(&["-r", "-R", "--recursive", "--dereference-recursive"])
                || args.iter().any(|a| {
                    let t = a.text();
                    t.starts_with('-') && !t.starts_with("--") && t.contains(['r', 'R'])
                })
        }
        "rg" | "ag" | "ack" => true,
        _ => false,
    };
    if in_place {
        Access::Write
    } else if recursive {
        let hidden = !matches!(name, "rg" | "ag" | "ack")
            || has(&[
                "--hidden",
                "-u",
                "-uu",
                "-uuu",
                "--no-ignore",
                "-.",
                "--unrestricted",
            ]);
        Access::Search { hidden }
    } else {
        default
    }
}

/// The operand a command given none works on: a recursive search the working directory,
/// `cd` the home directory.
fn implied_operand(name: &str, access: Access, declared: Access, line: &mut Line) {
    let push = |word: Word, line: &mut Line| line.files.push(FileUse { word, access });
    if matches!(access, Access::Search { .. }) {
        // A recursive search with no path searches the working directory.
        push(Word::fixed("."), line);
    }
    if declared == Access::Enter && name == "cd" {
        // `cd` alone goes home.
        push(
            Word::fixed(&std::env::var("HOME").unwrap_or_else(|_| "/".into())),
            line,
        );
    }
}

pub(super) fn file_operands(name: &str, args: &[Word], line: &mut Line) {
    let Some(spec) = file_command(name) else {
        return;
    };
    let access = operand_access(name, args, spec.access);
    let push = |word: Word, line: &mut Line| line.files.push(FileUse { word, access });
    let mut program_pending = spec.program_first;
    let mut options_done = false;
    let mut operands = 0;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        let text = arg.text();
        if !options_done && text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && text.starts_with('-') && text.len() > 1 && arg.value.is_some() {
            if let Some((option, value)) = text.split_once('=') {
                if path_option(name, option).is_some()
                    || value.contains('/')
                    || value.starts_with(['~', '.'])
                {
                    line.files.push(FileUse {
                        word: arg.after(option.len() + 1),
                        access: path_option(name, option).unwrap_or(access),
                    });
                }
            } else if let Some(option_access) = path_option(name, text) {
                program_pending = false;
                if let Some(value) = args.get(index) {
                    line.files.push(FileUse {
                        word: value.clone(),
                        access: option_access,
                    });
                }
                index += 1;
            } else if value_options(name).contains(&text) {
                if text == "-e" {
                    program_pending = false;
                }
                index += 1;
            } else if matches!(name, "jq" | "yq") && text.starts_with("--") {
                // `--arg name value`, `--slurpfile name file` …
                if matches!(text, "--slurpfile" | "--rawfile")
                    && let Some(file) = args.get(index + 1)
                {
                    push(file.clone(), line);
                }
                if matches!(text, "--arg" | "--argjson" | "--slurpfile" | "--rawfile") {
                    index += 2;
                }
            }
            continue;
        }
        if program_pending {
            program_pending = false;
            continue;
        }
        if name == "dd" {
            for key in ["if=", "of="] {
                if text.starts_with(key) {
                    push(arg.after(key.len()), line);
                }
            }
            continue;
        }
        operands += 1;
        push(arg.clone(), line);
    }
    if operands == 0 {
        implied_operand(name, access, spec.access, line);
    }
}
