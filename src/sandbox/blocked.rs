//! Telling a command that hit the sandbox from one that failed on its own, from its error
//! output: a refusal the kernel gives for Landlock (`Permission denied`, `Operation not
//! permitted`, `Read-only file system`, `Invalid cross-device link`) naming a path the policy
//! does not let it write, or a refused connection while the network is off.

use std::path::{Path, PathBuf};

use super::{Policy, SandboxMode};
use crate::permission::shell::Access;

/// What the sandbox stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    Write(PathBuf),
    Network,
    /// A named Unix socket: a daemon outside could act for the command.
    UnixSocket,
}

const REFUSALS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "Invalid cross-device link",
];

const NETWORK_WORDS: &[&str] = &["connect", "socket", "bind", "network", "Connection"];

impl Blocked {
    /// The words the model and the person read after the command's output.
    pub fn explain(&self, policy: &Policy) -> String {
        let what = match (self, policy.mode) {
            (Blocked::Network, _) => {
                "network access is off in this session's sandbox (\"network\": false)".to_owned()
            }
            (Blocked::UnixSocket, _) => "connecting to a Unix socket outside the project is \
                refused (a daemon such as Docker or tmux could act for the command; the person \
                can allow one with \"sandbox\": {\"unix_sockets\": [\"/path\"]})"
                .to_owned(),
            (Blocked::Write(path), SandboxMode::ReadOnly) => format!(
                "writing {} is refused: this session's sandbox is read-only",
                path.display()
            ),
            (Blocked::Write(path), _) => format!(
                "writing {} is outside the project (the sandbox lets commands write only in \
                 the project, the temp dir and the configured \"writable\" directories)",
                path.display()
            ),
        };
        format!(
            "Blocked by the sandbox: {what}. If the command really must do this, call bash \
             again with \"outside_sandbox\": true; the person will be asked to approve it."
        )
    }
}

/// What in `output` the sandbox refused, if anything: `command` ran in `workdir` under
/// `policy` (its `cd`s say where relative paths in the errors may be).
pub fn find_blocked(
    output: &str,
    command: &str,
    workdir: &Path,
    policy: &Policy,
) -> Option<Blocked> {
    let dirs = working_dirs(command, workdir);
    let mut refused = false;
    for line in output.lines() {
        if !REFUSALS.iter().any(|r| line.contains(r)) {
            continue;
        }
        refused = true;
        if !policy.network
            && !policy.holds_unix_sockets()
            && NETWORK_WORDS.iter().any(|w| line.contains(w))
        {
            return Some(Blocked::Network);
        }
        for candidate in path_candidates(line) {
            if candidate.starts_with("/dev/tcp/") || candidate.starts_with("/dev/udp/") {
                continue;
            }
            for dir in &dirs {
                let path = crate::paths::resolve_in(dir, &candidate);
                if !policy.may_write(&path) && writable_without_sandbox(&path) {
                    return Some(Blocked::Write(super::real_path(&path)));
                }
            }
        }
    }
    // A refusal naming no path, in a command that opened a socket (a traceback's other lines
    // say so): the network is off, or Unix sockets are held.
    let socket = refused && NETWORK_WORDS.iter().any(|w| output.contains(w));
    let unix = ["AF_UNIX", "unix", "Unix"]
        .iter()
        .any(|w| output.contains(w) || command.contains(w));
    if socket && policy.holds_unix_sockets() && (unix || policy.network) {
        return Some(Blocked::UnixSocket);
    }
    (socket && !policy.network).then_some(Blocked::Network)
}

/// The directories a command may have been in: its workdir and every `cd`/`pushd` target the
/// shell parser sees in it.
fn working_dirs(command: &str, workdir: &Path) -> Vec<PathBuf> {
    let line = crate::permission::shell::analyse(command);
    let entered = line
        .files
        .iter()
        .filter(|file| file.access == Access::Enter)
        .filter_map(|file| file.word.value.as_deref())
        .map(|dir| crate::paths::resolve_in(workdir, dir));
    std::iter::once(workdir.to_path_buf())
        .chain(entered)
        .collect()
}

/// The quoted strings of an error line, and its `: `-separated fields that look like paths.
fn path_candidates(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for quote in ['\'', '"', '`'] {
        let inside = line.split(quote).skip(1).step_by(2);
        found.extend(inside.filter(|s| !s.is_empty()).map(str::to_owned));
    }
    if let Some((_, rest)) = line.split_once('\u{2018}')
        && let Some((inside, _)) = rest.split_once('\u{2019}')
    {
        found.push(inside.to_owned());
    }
    // `prog: [line 1: ][cannot create ]PATH: Permission denied`: the field before the refusal
    // ends with the path (the first field is the program reporting it, never the path).
    let fields: Vec<&str> = line.split(": ").collect();
    if let Some(at) = fields
        .iter()
        .position(|f| REFUSALS.iter().any(|r| f.starts_with(r)))
        .filter(|at| *at >= 2)
    {
        let word = fields[at - 1].rsplit(' ').next().unwrap_or_default().trim();
        if !word.is_empty() && !word.contains(['\'', '"']) {
            found.push(word.to_owned());
        }
    }
    found
}

/// Whether Tandem itself may write at `path` (or create it in its directory): otherwise the
/// refusal is the file system's own, not the sandbox's.
fn writable_without_sandbox(path: &Path) -> bool {
    let target = if path.exists() {
        path.to_path_buf()
    } else {
        match path.ancestors().skip(1).find(|p| p.exists()) {
            Some(dir) => dir.to_path_buf(),
            None => return false,
        }
    };
    crate::sys::writable_by_us(&target)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(network: bool) -> Policy {
        Policy {
            mode: SandboxMode::WorkspaceWrite,
            network,
            writable: vec![PathBuf::from("/tmp/project")],
            required: false,
            project: PathBuf::from("/tmp/project"),
            sockets: Vec::new(),
            shielded: Vec::new(),
            roots: Vec::new(),
        }
    }

    #[test]
    fn errors_naming_a_path_outside_are_the_sandbox_and_others_are_not() {
        let cwd = Path::new("/tmp/project");
        let cases = [
            "touch: cannot touch '/tmp/out/a': Permission denied",
            "/bin/bash: line 1: /tmp/out/a: Permission denied",
            "PermissionError: [Errno 13] Permission denied: '/tmp/out/a'",
            "cp: cannot create regular file '/tmp/out/a': Permission denied",
            "ln: failed to create hard link '/tmp/out/a' => 'f': Invalid cross-device link",
        ];
        for line in cases {
            assert_eq!(
                find_blocked(line, "x", cwd, &policy(true)),
                Some(Blocked::Write(PathBuf::from("/tmp/out/a"))),
                "{line}"
            );
        }
        assert_eq!(
            find_blocked(
                "touch: cannot touch 'a': Permission denied",
                "cd ../out && touch a",
                cwd,
                &policy(true)
            ),
            Some(Blocked::Write(PathBuf::from("/tmp/out/a")))
        );
        assert_eq!(
            find_blocked(
                "touch: cannot touch 'a': Permission denied",
                "touch a",
                cwd,
                &policy(true)
            ),
            None
        );
        assert_eq!(find_blocked("all fine", "x", cwd, &policy(false)), None);
        assert_eq!(
            find_blocked("bash: connect: Permission denied", "x", cwd, &policy(false)),
            Some(Blocked::Network)
        );
    }
}
