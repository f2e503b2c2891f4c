//! What a bash line needs allowed before it runs, asked as one question: its commands under
//! `bash`, the files it names under `read`/`edit` and `external_directory` (resolved as the
//! file tools resolve them), and what it hides, which only a catch-all rule can allow.

use std::path::{Path, PathBuf};

use crate::message::Location;
use crate::permission::Sight;
use crate::permission::keys;
use crate::permission::shell;
use crate::permission::shell::{Access, Line};
use crate::tool::reach::{directory_pattern, expand_glob, real_path};
use crate::tool::{Need, PermissionCheck, ToolContext, ToolError};

/// Files that are not files: writing to or reading from them touches nothing.
fn is_device(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/stdin" | "/dev/tty" | "/dev/zero"
    ) || path
        .strip_prefix("/dev/fd/")
        .is_some_and(|fd| fd.chars().all(|c| c.is_ascii_digit()))
}

/// The files a line touches, sorted by what they need.
#[derive(Default)]
struct Files {
    /// `dir/*` patterns of every directory outside the project.
    outside: Vec<String>,
    reads: Vec<String>,
    edits: Vec<String>,
    /// A path known only at run time (computed, or a glob Tandem cannot list).
    unseen: bool,
    unseen_write: bool,
}

fn add(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

impl Files {
    fn sort(ctx: &ToolContext, line: &Line, workdir: &Path, root: &Path) -> Self {
        let mut files = Files::default();
        let readable = &ctx.readable();
        // A relative path may be read where the line was, or after any of its `cd`s: each
        // place is judged (`cd .git/hooks && echo x > pre-commit` writes a hook).
        let mut dirs = vec![workdir.to_path_buf()];
        for file in line.files.iter().filter(|f| f.access == Access::Enter) {
            if let Some(dir) = file.word.plain() {
                let dir = crate::paths::resolve_in(workdir, dir);
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        for file in &line.files {
            let unseen = |files: &mut Files| {
                files.unseen = true;
                files.unseen_write |= file.access == Access::Write;
            };
            let Some(text) = file.word.value.as_deref() else {
                unseen(&mut files);
                continue;
            };
            if is_device(text) {
                continue;
            }
            let mut candidates: Vec<PathBuf> = Vec::new();
            for dir in &dirs {
                if file.word.glob {
                    match expand_glob(dir, text) {
                        Some(paths) => candidates.extend(paths),
                        None => unseen(&mut files),
                    }
                } else {
                    let path = dir.join(text);
                    if !candidates.contains(&path) {
                        candidates.push(path);
                    }
                }
            }
            for path in candidates {
                let Ok(real) = real_path(&path) else {
                    unseen(&mut files);
                    continue;
                };
                if !ctx.in_workspace(&real) {
                    add(&mut files.outside, directory_pattern(&real));
                }
                let names = [ctx.relative(&real), ctx.relative(&ctx.resolve(text))];
                for name in names {
                    match file.access {
                        Access::Read => add(&mut files.reads, name),
                        Access::Write => {
                            add(&mut files.reads, name.clone());
                            add(&mut files.edits, name);
                        }
                        Access::Enter => {}
                        Access::Search { hidden } => {
                            add(&mut files.reads, name);
                            if !withheld_beneath(&real, hidden, readable, root, &mut files.reads) {
                                files.unseen = true;
                            }
                        }
                    }
                }
            }
        }
        files
    }
}

/// How many files beneath a searched folder are looked at before Tandem gives up and asks.
const MAX_SEARCHED_FILES: usize = 20_000;

/// Adds to `reads` every file beneath `dir` (walked as the search will walk it) that the read
/// rules would not let it read without asking. `false` when there were too many to look at.
fn withheld_beneath(
    dir: &Path,
    hidden: bool,
    readable: &dyn Fn(&Path) -> bool,
    root: &Path,
    reads: &mut Vec<String>,
) -> bool {
    if !dir.is_dir() {
        return true;
    }
    let walker = ignore::WalkBuilder::new(dir)
        .standard_filters(!hidden)
        .build();
    for (count, entry) in walker.flatten().enumerate() {
        if count > MAX_SEARCHED_FILES {
            return false;
        }
        if entry.file_type().is_some_and(|t| t.is_file()) && !readable(entry.path()) {
            add(reads, crate::paths::relative_to(root, entry.path()));
        }
    }
    true
}

/// Asks for everything `command`, run in `workdir`, needs.
pub async fn check_line(ctx: &ToolContext, command: &str, workdir: &Path) -> Result<(), ToolError> {
    let line = shell::analyse(command);
    let root = std::fs::canonicalize(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone());
    let files = Files::sort(ctx, &line, workdir, &root);
    let path_sight = if files.unseen {
        Sight::Partial
    } else {
        Sight::Full
    };
    let mut needs = Vec::new();
    if !files.outside.is_empty() || files.unseen {
        needs.push(
            Need::new(keys::EXTERNAL_DIRECTORY, files.outside.clone())
                .always(files.outside)
                .seen(path_sight),
        );
    }
    if !files.reads.is_empty() || files.unseen {
        needs.push(
            Need::new(keys::READ, files.reads.clone())
                .always(files.reads)
                .seen(path_sight),
        );
    }
    if !files.edits.is_empty() || files.unseen_write {
        let sight = if files.unseen_write {
            Sight::Partial
        } else {
            Sight::Full
        };
        needs.push(
            Need::new(keys::EDIT, files.edits.clone())
                .always(files.edits)
                .seen(sight),
        );
    }
    needs.push(
        Need::new(keys::BASH, line.patterns())
            .always(line.always())
            .seen(line.sight()),
    );
    ctx.ask(PermissionCheck {
        needs,
        title: title(command, &line),
        locations: vec![Location::file(workdir.to_owned())],
        diffs: vec![],
    })
    .await
}

/// The command, and why Tandem cannot vouch for all of it.
fn title(command: &str, line: &Line) -> String {
    if line.unparsed && !line.unread.is_empty() {
        return format!(
            "{command}\n(Tandem cannot read all of this line as bash will: {}.)",
            line.unread.join(", ")
        );
    }
    if line.unparsed {
        return format!("{command}\n(Tandem cannot parse all of this line.)");
    }
    if line.hidden.is_empty() {
        return command.to_owned();
    }
    let mut reasons: Vec<String> = Vec::new();
    for hidden in &line.hidden {
        let reason = hidden.to_string();
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    format!(
        "{command}\n(Tandem cannot see all this runs: {}.)",
        reasons.join(", ")
    )
}
