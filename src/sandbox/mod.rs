//! The OS sandbox under the permission rules: a command the rules let through still cannot
//! write outside the project or use the network unless the person said so. Policies come from
//! the config; Landlock (and seccomp, for the network) enforce them in the child, between fork
//! and exec.

mod blocked;
mod coverage;
pub mod exec;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(target_os = "linux")]
use linux as kernel;
#[cfg(not(target_os = "linux"))]
use other as kernel;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use self::blocked::{Blocked, find_blocked};
pub use self::coverage::Coverage;
pub use self::coverage::RESOLVE_UNIX;
pub use crate::config::{SandboxConfig, SandboxMode};
pub use kernel::Prepared;

/// What a sandboxed process may do, resolved for one project.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Policy {
    pub mode: SandboxMode,
    pub network: bool,
    /// Where it may write (workspace-write): the project, the temp dirs, the config's extras.
    pub writable: Vec<PathBuf>,
    /// Refuse to run commands where the platform has no sandbox.
    pub required: bool,
    /// The project: named Unix sockets beneath it may be connected to.
    #[serde(default)]
    pub project: PathBuf,
    /// Named Unix sockets (or folders of them) the config allows beyond the project's.
    #[serde(default)]
    pub sockets: Vec<PathBuf>,
    /// Places kept read-only even beneath writable ones (git hooks and config, Tandem's config
    /// in the project, its data and config dirs), where they exist.
    #[serde(default)]
    pub shielded: Vec<PathBuf>,
    /// The workspace's other roots, writable and shielded as the project is.
    #[serde(default)]
    pub roots: Vec<PathBuf>,
}

impl Policy {
    /// The policy of `config` (its keys already merged, agent over project over global) for a
    /// project at `root`.
    pub fn resolve(config: Option<&SandboxConfig>, root: &Path) -> Self {
        Self::for_workspace(config, root, &[])
    }

    /// `resolve` for a workspace with other `roots` beside the project at `root`: each is
    /// writable (in workspace-write) and its protected files are shielded as the project's.
    pub fn for_workspace(config: Option<&SandboxConfig>, root: &Path, roots: &[PathBuf]) -> Self {
        let default = SandboxConfig::default();
        let config = config.unwrap_or(&default);
        let mode = config.mode.unwrap_or_default();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let place = |extra: &String| match (extra.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => crate::paths::resolve_in(root, extra),
        };
        let mut writable = Vec::new();
        let allowed: Vec<PathBuf> = config.writable.iter().flatten().map(place).collect();
        if mode == SandboxMode::WorkspaceWrite {
            writable.push(root.to_path_buf());
            writable.extend(roots.iter().cloned());
            writable.extend(temp_dirs());
            writable.extend(allowed.iter().cloned());
        }
        let mut shielded = kernel::shield_candidates(root, &allowed);
        for extra in roots {
            for place in kernel::shield_candidates(extra, &allowed) {
                if !shielded.contains(&place) {
                    shielded.push(place);
                }
            }
        }
        Self {
            mode,
            network: config.network.unwrap_or(true),
            writable,
            required: config.required.unwrap_or(false),
            project: root.to_path_buf(),
            sockets: config.unix_sockets.iter().flatten().map(place).collect(),
            shielded,
            roots: roots.to_vec(),
        }
    }

    /// This policy held inside `ceiling` (a caller's, over its subagents): the stricter mode
    /// (read-only over workspace-write over off), no network if either has none, required if
    /// either is.
    pub fn within(self, ceiling: &Policy) -> Policy {
        let rank = |mode: SandboxMode| match mode {
            SandboxMode::ReadOnly => 0,
            SandboxMode::WorkspaceWrite => 1,
            SandboxMode::Off => 2,
        };
        let mut bounded = if rank(ceiling.mode) < rank(self.mode) {
            Policy {
                network: self.network,
                required: self.required,
                ..ceiling.clone()
            }
        } else {
            self
        };
        bounded.network &= ceiling.network;
        bounded.required |= ceiling.required;
        bounded
    }

    /// Whether connections to named Unix sockets are held (beyond the project's own).
    pub fn holds_unix_sockets(&self) -> bool {
        self.mode != SandboxMode::Off && self.sockets.is_empty()
    }

    /// True when commands run with no restriction at all.
    pub fn is_off(&self) -> bool {
        self.mode == SandboxMode::Off && self.network
    }

    /// How the mode reads in the editor and in `tandem doctor`: `workspace-write`,
    /// `read-only, no network`, `off`.
    pub fn label(&self) -> String {
        let mode = match self.mode {
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        };
        if self.network {
            mode.to_owned()
        } else {
            format!("{mode}, no network")
        }
    }

    /// Whether `path` (absolute) lies where this policy lets a command write.
    pub fn may_write(&self, path: &Path) -> bool {
        match self.mode {
            SandboxMode::Off => true,
            SandboxMode::ReadOnly => false,
            // Judged where the path really leads, as the kernel judges it: a link inside the
            // project to a place outside is outside.
            SandboxMode::WorkspaceWrite => {
                let real = real_path(path);
                self.writable
                    .iter()
                    .any(|root| real.starts_with(real_path(root)))
            }
        }
    }
}

/// Tandem's data and config folders, and each of their ancestors that lies beneath a place
/// commands may write: pinned, so that renaming a parent cannot swap in a planted store,
/// trust file or config (the folders themselves are also kept read-only). Never a folder
/// holding the project: a command's working folder lies beneath it and would not see the
/// mounts made over it.
pub(crate) fn tandem_dir_ancestors(writable: &[PathBuf], project: &Path) -> Vec<PathBuf> {
    let project = real_path(project);
    let mut pins = Vec::new();
    for dir in [crate::paths::data_dir(), crate::paths::config_dir()] {
        let dir = real_path(&dir);
        for root in writable.iter().map(|w| real_path(w)) {
            if !dir.starts_with(&root) || dir == root {
                continue;
            }
            for ancestor in dir.ancestors().take_while(|a| *a != root.as_path()) {
                if ancestor.is_dir()
                    && !project.starts_with(ancestor)
                    && !pins.iter().any(|p| p == ancestor)
                {
                    pins.push(ancestor.to_path_buf());
                }
            }
        }
    }
    pins
}

/// `top`'s keys over `base`'s (an agent's over the config's, a server's over the session's).
pub fn layered(top: Option<&SandboxConfig>, base: Option<&SandboxConfig>) -> SandboxConfig {
    let (top, base) = (
        top.cloned().unwrap_or_default(),
        base.cloned().unwrap_or_default(),
    );
    SandboxConfig {
        mode: top.mode.or(base.mode),
        network: top.network.or(base.network),
        writable: top.writable.or(base.writable),
        required: top.required.or(base.required),
        unix_sockets: top.unix_sockets.or(base.unix_sockets),
    }
}

/// The sandbox another agent's own process runs in under `caller`: it may write `state` (its
/// own state and caches), the workspace unless the caller is read-only (plan mode: then no
/// state folder above the workspace either), and `/dev/shm`; its temp dir is a private one its
/// starter adds (the system's is shared with everything else). None when the caller runs
/// unsandboxed.
pub fn for_agent(caller: &Policy, state: &[PathBuf]) -> Option<Policy> {
    if caller.mode == SandboxMode::Off {
        return None;
    }
    let shared_temp = [std::env::temp_dir(), PathBuf::from("/var/tmp")];
    let mut writable: Vec<PathBuf> = temp_dirs()
        .into_iter()
        .filter(|d| !shared_temp.contains(d))
        .collect();
    writable.extend(state.iter().cloned());
    if caller.mode == SandboxMode::ReadOnly {
        let workspace: Vec<PathBuf> = std::iter::once(&caller.project)
            .chain(&caller.roots)
            .map(|p| real_path(p))
            .collect();
        writable.retain(|dir| {
            let dir = real_path(dir);
            !workspace.iter().any(|w| w.starts_with(&dir))
        });
    } else {
        let own = caller.writable.iter().filter(|d| !shared_temp.contains(d));
        writable.extend(own.cloned());
    }
    Some(Policy {
        mode: SandboxMode::WorkspaceWrite,
        writable,
        ..caller.clone()
    })
}

/// The system's temp dir (`TMPDIR`, else `/tmp`) and, on Linux, `/dev/shm`.
fn temp_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![std::env::temp_dir()];
    if std::env::var_os("TMPDIR").is_none() {
        dirs.push(PathBuf::from("/var/tmp"));
    }
    dirs.push(PathBuf::from("/dev/shm"));
    dirs
}

/// `path` with its links resolved (as written when they loop).
pub(super) fn real_path(path: &Path) -> PathBuf {
    crate::paths::real_path(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Whether this machine can sandbox commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock, at this ABI version (network rules need 4).
    Landlock { abi: i32 },
    /// No sandbox here, and why.
    Missing(String),
}

impl Support {
    pub fn is_available(&self) -> bool {
        matches!(self, Support::Landlock { .. })
    }

    /// One line for `tandem doctor` and the session's warning.
    pub fn describe(&self) -> String {
        match self {
            Support::Landlock { abi } => format!("Landlock ABI {abi}"),
            Support::Missing(why) => why.clone(),
        }
    }
}

/// What this machine offers, probed once. `TANDEM_SANDBOX_UNSUPPORTED=1` makes Tandem behave
/// as on a platform without one (for tests and for bisecting a sandbox problem).
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(|| {
        if std::env::var_os("TANDEM_SANDBOX_UNSUPPORTED").is_some_and(|v| v == "1") {
            return Support::Missing(
                "the sandbox is turned off by TANDEM_SANDBOX_UNSUPPORTED".into(),
            );
        }
        kernel::probe()
    })
}

/// Probes what this machine offers (Landlock's ABI, and whether user namespaces allow the
/// read-only mounts: a fork and an exec) on a thread of its own as Tandem starts, so that no
/// session's answer waits for it.
pub fn warm_up() {
    std::thread::spawn(|| {
        if support().is_available() {
            kernel::shield_available();
        }
    });
}

/// The ruleset a process started under `policy` takes on; None where this platform has no
/// sandbox (the session was warned), an error when the config requires one or it cannot be
/// built (the message says which).
pub fn prepare(policy: &Policy) -> Result<Option<Prepared>, String> {
    let support = support();
    if !support.is_available() {
        if policy.required {
            return Err(format!(
                "no sandbox is available here ({}) and the config requires one \
                 (\"sandbox\": {{\"required\": true}})",
                support.describe()
            ));
        }
        return Ok(None);
    }
    let coverage = Coverage::of(policy, support);
    if policy.required && !coverage.gaps.is_empty() {
        return Err(format!(
            "this kernel's sandbox does not hold everything the config asks for (not \
             protected: {}) and the config requires it (\"sandbox\": {{\"required\": true}})",
            coverage.gaps.join("; ")
        ));
    }
    Prepared::new(policy)
        .map(Some)
        .map_err(|e| format!("cannot set up the sandbox: {e}"))
}

/// The sandbox a config gives a project's commands, for `tandem doctor` and `config check`:
/// "workspace-write (Landlock ABI 7); writable: …".
pub fn describe(config: Option<&SandboxConfig>, root: &Path) -> String {
    let policy = Policy::resolve(config, root);
    if policy.is_off() {
        return "off".into();
    }
    let mut text = format!("{} ({})", policy.label(), support().describe());
    if !policy.writable.is_empty() {
        let dirs: Vec<String> = policy
            .writable
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        text.push_str(&format!("; writable: {}", dirs.join(", ")));
    }
    text.push('.');
    text.push_str(&Coverage::of(&policy, support()).details());
    text
}

/// The warning a session starts with when its commands cannot be sandboxed, if any.
pub fn warning(policy: &Policy) -> Option<String> {
    let support = support();
    if policy.is_off() {
        return None;
    }
    if support.is_available() {
        // Said once when a session opens: what this kernel's sandbox does not hold.
        let coverage = Coverage::of(policy, support);
        return (!coverage.gaps.is_empty()).then(|| {
            format!(
                "The sandbox here ({}) does not hold everything: not protected: {}.{}",
                support.describe(),
                coverage.gaps.join("; "),
                if policy.required {
                    " \"required\": true is set, so Tandem will not run shell commands."
                } else {
                    ""
                }
            )
        });
    }
    let what = support.describe();
    Some(if policy.required {
        format!(
            "No sandbox is available here ({what}) and \"sandbox\": {{\"required\": true}} is \
             set: Tandem will not run shell commands in this session."
        )
    } else {
        format!(
            "No sandbox is available here ({what}): shell commands run with your full \
             access, limited only by the permission rules."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_agent_writes_its_state_and_the_workspace_but_not_the_shared_temp_dir() {
        let project = PathBuf::from("/work/p");
        let caller = Policy::resolve(None, &project);
        let state = [PathBuf::from("/home/me/.codex")];
        let agent = for_agent(&caller, &state).unwrap();
        assert!(agent.writable.contains(&project) && agent.writable.contains(&state[0]));
        assert!(!agent.writable.contains(&std::env::temp_dir()));
        let read_only = Policy {
            mode: SandboxMode::ReadOnly,
            ..caller.clone()
        };
        let above = [PathBuf::from("/work"), state[0].clone()];
        let agent = for_agent(&read_only, &above).unwrap();
        assert!(!agent.writable.contains(&project) && !agent.writable.contains(&above[0]));
        assert!(agent.writable.contains(&state[0]));
        let off = Policy {
            mode: SandboxMode::Off,
            ..caller
        };
        assert!(for_agent(&off, &state).is_none());
    }

    #[test]
    fn workspace_write_covers_the_project_the_temp_dir_and_the_extras_only() {
        let config = SandboxConfig {
            writable: Some(vec!["../cache".into()]),
            ..Default::default()
        };
        let policy = Policy::resolve(Some(&config), Path::new("/work/p"));
        assert!(policy.may_write(Path::new("/work/p/src/a.rs")));
        assert!(policy.may_write(&std::env::temp_dir().join("x")));
        assert!(policy.may_write(Path::new("/work/cache/x")));
        assert!(!policy.may_write(Path::new("/work/other/x")));
        assert_eq!(policy.label(), "workspace-write");
        let read_only = Policy::resolve(
            Some(&SandboxConfig {
                mode: Some(SandboxMode::ReadOnly),
                network: Some(false),
                ..Default::default()
            }),
            Path::new("/work/p"),
        );
        assert!(!read_only.may_write(Path::new("/work/p/a")));
        assert_eq!(read_only.label(), "read-only, no network");
    }
}
