//! Programs that run other programs, or write files, through their arguments (`git -c
//! core.pager=…`, `find -exec`, `rg --pre`, `sed`'s `e` and `w`, `awk`'s `system()`, `tar
//! --to-command` …): one table, so an allow rule for the program never allows what it runs.

use super::programs;
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
    entry(&["sort"], "-o", Writes),
    entry(&["sort"], "--output", Writes),
    entry(LESS, "-o", Writes),
    entry(LESS, "-O", Writes),
    entry(LESS, "--log-file", Writes),
    entry(LESS, "--LOG-FILE", Writes),
    entry(&["mapfile", "readarray"], "-C", Runs),
    entry(&["man"], "-P", Runs),
    entry(&["man"], "--pager", Runs),
    entry(&["man"], "-H", Runs),
    entry(&["man"], "--html", Runs),
    entry(&["cargo"], "--config", Runs),
    entry(&["cargo"], "-Z", Runs),
    // Checked against each program's manual (round four): hooks a template brings, awk's
    // program text and its files, tar's snapshots, the logs and jars curl and wget write,
    // the programs scp and sftp start.
    entry(GIT, "--template", Runs),
    sub(GIT, "clone", "--config", Runs),
    sub(GIT, "clone", "-c", Runs),
    entry(AWK, "--source", Runs),
    entry(AWK, "-e", Runs),
    entry(AWK, "-o", WritesUnseen),
    entry(AWK, "--pretty-print", WritesUnseen),
    entry(AWK, "-p", WritesUnseen),
    entry(AWK, "--profile", WritesUnseen),
    entry(AWK, "--dump-variables", WritesUnseen),
    entry(TAR, "-g", Writes),
    entry(TAR, "--listed-incremental", Writes),
    entry(TAR, "--index-file", Writes),
    entry(TAR, "--volno-file", Writes),
    entry(LESS, "--lesskey-content", Runs),
    entry(&["zip"], "-O", Writes),
    entry(&["zip"], "--output-file", Writes),
    entry(MAKE, "-I", Runs),
    entry(MAKE, "--include-dir", Runs),
    entry(&["scp", "sftp"], "-S", Runs),
    entry(&["sftp"], "-D", Runs),
    entry(&["sftp"], "-b", Runs),
    entry(&["ssh"], "-E", Writes),
    entry(&["rsync"], "--log-file", Writes),
    entry(&["rsync"], "--write-batch", Writes),
    entry(&["rsync"], "--only-write-batch", Writes),
    entry(&["curl"], "-D", Writes),
    entry(&["curl"], "--dump-header", Writes),
    entry(&["curl"], "-c", Writes),
    entry(&["curl"], "--cookie-jar", Writes),
    entry(&["curl"], "--trace", Writes),
    entry(&["curl"], "--trace-ascii", Writes),
    entry(&["curl"], "--libcurl", Writes),
    entry(&["curl"], "--stderr", Writes),
    entry(&["curl"], "--etag-save", Writes),
    entry(&["curl"], "--hsts", Writes),
    entry(&["curl"], "--alt-svc", Writes),
    entry(&["curl"], "--remote-name-all", WritesUnseen),
    entry(&["curl"], "--output-dir", WritesUnseen),
    entry(&["wget"], "-o", Writes),
    entry(&["wget"], "--output-file", Writes),
    entry(&["wget"], "-a", Writes),
    entry(&["wget"], "--append-output", Writes),
    entry(&["wget"], "--config", Runs),
    entry(&["wget"], "--use-askpass", Runs),
    entry(&["wget"], "--save-cookies", Writes),
    entry(&["wget"], "-P", WritesUnseen),
    entry(&["wget"], "--directory-prefix", WritesUnseen),
    entry(&["nc", "netcat"], "-o", Writes),
    entry(&["patch"], "-r", Writes),
    entry(&["patch"], "--reject-file", Writes),
    entry(&["patch"], "-B", WritesUnseen),
    entry(&["patch"], "--prefix", WritesUnseen),
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
    // A shell in a recorded terminal; a debugger that reads `.gdbinit` and runs its program.
    "script",
    "gdb",
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
    if ALWAYS_RUNS.contains(&name) {
        runs(name.to_owned(), line);
        return;
    }
    let subcommand = subcommand(name, args);
    for (index, arg) in args.iter().enumerate() {
        let Some(text) = arg.value.as_deref() else {
            continue;
        };
        table_options(name, subcommand, args, index, line);
        let before_subcommand =
            subcommand.is_none_or(|s| args[..index].iter().all(|a| a.text() != s) && text != s);
        odd_argument(name, text, args.get(index + 1), before_subcommand, line);
    }
    if args.iter().any(|a| a.value.is_none()) && matches!(name, "git" | "tar" | "sed" | "make") {
        // An option computed at run time may be any of the above.
        runs(format!("{name} with a computed argument"), line);
    }
    whole_program(name, subcommand, args, line);
}

fn runs(what: String, line: &mut Line) {
    line.hidden.push(Hidden::Argument(what));
}

/// What `args[index]` does as one of the table's options of `name`.
fn table_options(
    name: &str,
    subcommand: Option<&str>,
    args: &[Word],
    index: usize,
    line: &mut Line,
) {
    for entry in TABLE {
        if !entry.programs.contains(&name)
            || entry.subcommand.is_some_and(|s| Some(s) != subcommand)
        {
            continue;
        }
        let Some(value) = option_value(entry.flag, &args[index], args.get(index + 1)) else {
            continue;
        };
        match entry.effect {
            Effect::Runs => runs(format!("{name} {}", entry.flag), line),
            // `-` is standard output.
            Effect::Writes if value.text() == "-" => {}
            Effect::Writes => line.files.push(FileUse {
                word: value,
                access: Access::Write,
            }),
            Effect::WritesUnseen => line.write_unseen(),
        }
    }
}

/// Arguments that run code without being an option the table can name: `git -c key=value`
/// (but harmless keys), `less +cmd`, `make VAR=value`, `socat EXEC:…`.
fn odd_argument(
    name: &str,
    text: &str,
    next: Option<&Word>,
    before_subcommand: bool,
    line: &mut Line,
) {
    if name == "git" && text == "-c" && before_subcommand {
        let harmless = next.and_then(|v| v.value.as_deref()).is_some_and(|v| {
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
    let upper = text.to_ascii_uppercase();
    if name == "socat" && (upper.contains("EXEC:") || upper.contains("SYSTEM:")) {
        runs("socat EXEC".to_owned(), line);
    }
}

/// What a program does as a whole: its subcommand, script or mode, or the files it writes.
fn whole_program(name: &str, subcommand: Option<&str>, args: &[Word], line: &mut Line) {
    let has = |test: &dyn Fn(&str) -> bool| args.iter().any(|a| test(a.text()));
    match name {
        "git" => programs::git_subcommand(subcommand, args, line),
        "sed" | "gsed" => programs::sed(args, line),
        _ if AWK.contains(&name) => programs::awk(args, line),
        _ if TAR.contains(&name) => programs::tar(args, line),
        "unzip" if !has(&|t| matches!(t, "-l" | "-t" | "-p" | "-v" | "-Z")) => line.write_unseen(),
        "zip" => {
            if let Some(archive) = args.iter().find(|a| !a.text().starts_with('-')) {
                line.files.push(FileUse {
                    word: archive.clone(),
                    access: Access::Write,
                });
            }
        }
        "wget" if !has(&|t| t.starts_with("-O") || t.starts_with("--output-document")) => {
            line.write_unseen()
        }
        "patch" if !has(&|t| t == "--dry-run") => line.write_unseen(),
        "split" => line.write_unseen(),
        _ => {}
    }
}

/// The value of `flag` when `arg` is it, read as getopt_long and git's parse-options read
/// it: the word itself (value in the next word), `--flag=value`, an unambiguous prefix of a
/// long flag (`--outp=x` is `--output=x`; any prefix counts, since an ambiguous one is
/// refused by the program), a short flag with its value glued on (`-ofile`), or a short flag
/// in a bundle (`-sSo file`, `-xOcmd`).
fn option_value(flag: &str, arg: &Word, next: Option<&Word>) -> Option<Word> {
    let text = arg.text();
    if text == flag {
        return Some(next.cloned().unwrap_or_else(|| Word::fixed("")));
    }
    if let Some(long) = flag.strip_prefix("--") {
        let given = text.strip_prefix("--").filter(|g| !g.is_empty())?;
        let (name, value) = match given.split_once('=') {
            Some((name, _)) => (name, Some(2 + name.len() + 1)),
            None => (given, None),
        };
        if name.is_empty() || !long.starts_with(name) {
            return None;
        }
        return Some(match value {
            Some(at) => arg.after(at),
            None => next.cloned().unwrap_or_else(|| Word::fixed("")),
        });
    }
    if text.starts_with("--") || !text.starts_with('-') {
        return None;
    }
    // `-ocmd`: glued on (also single-dash long flags such as `find -fls` or `gdb -ex`).
    if text.len() > flag.len() && text.starts_with(flag) {
        return Some(arg.after(flag.len()));
    }
    // A bundle of one-letter flags: the flag's letter anywhere in it takes the rest of the
    // word, or the next word, as its value.
    let letter = flag.strip_prefix('-').filter(|l| l.len() == 1)?;
    let bundle = &text[1..];
    let at = bundle.find(letter)?;
    if !bundle[..at].chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let rest = 1 + at + 1;
    Some(if rest < text.len() {
        arg.after(rest)
    } else {
        next.cloned().unwrap_or_else(|| Word::fixed(""))
    })
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
