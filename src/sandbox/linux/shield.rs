//! Read-only bind mounts over what a command must never write even where it may write around it
//! (the project's protected files: git's hooks and config, Tandem's and OpenCode's config,
//! direnv and editor tasks; Tandem's own data and config), made in a private user and mount
//! namespace between fork and exec (`sys::PrivateMounts`), before Landlock, which then forbids
//! undoing them.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::sandbox::Policy;
use crate::sys::PrivateMounts;

/// The places `policy` keeps read-only beneath its writable ones: the project's protected
/// files, and Tandem's data and config (the store with its approvals, auth keys, the user
/// config).
/// Those the config lists as writable themselves (or a place inside them) are left alone; a
/// broader writable folder does not unshield them.
pub fn candidates(project: &Path, allowed: &[PathBuf]) -> Vec<PathBuf> {
    crate::permission::protected::AT_PROJECT_ROOT
        .iter()
        .map(|p| project.join(p))
        .chain([crate::paths::data_dir(), crate::paths::config_dir()])
        .filter(|p| !allowed.iter().any(|a| a.starts_with(p)))
        // A data dir holding the project (TANDEM_DATA_DIR=/tmp, say) must not make it read-only.
        .filter(|p| !project.starts_with(p))
        .collect()
}

/// `.git` folders of repositories nested in `project`, at most three levels down, outside
/// hidden, dependency and build folders, reading 200 folders at most (found as a command
/// starts, so it stays cheap); 32 at most.
fn nested_git_dirs(project: &Path) -> Vec<PathBuf> {
    const SKIP: [&str; 4] = ["node_modules", "target", "vendor", "dist"];
    let mut found = Vec::new();
    let mut level = vec![project.to_path_buf()];
    let mut read = 0;
    for _ in 0..3 {
        let mut next = Vec::new();
        for dir in level {
            read += 1;
            if read > 200 {
                break;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten().take(500) {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if entry.file_type().is_ok_and(|t| t.is_dir())
                    && !name.starts_with('.')
                    && !SKIP.contains(&name.as_ref())
                {
                    let path = entry.path();
                    if path.join(".git").is_dir() {
                        found.push(path.join(".git"));
                    }
                    next.push(path);
                }
            }
        }
        if found.len() > 32 {
            break;
        }
        level = next;
    }
    found.truncate(32);
    found
}

/// The read-only mounts (and pinned git directories) for `policy`: the candidates that exist
/// and that it could otherwise write. Nested repositories are looked for here, as a command
/// starts in a real project, never for a policy only shown.
pub(super) fn mounts(policy: &Policy) -> Option<PrivateMounts> {
    let roots: Vec<&PathBuf> = std::iter::once(&policy.project)
        .chain(&policy.roots)
        .collect();
    let nested: Vec<PathBuf> = roots.iter().flat_map(|r| nested_git_dirs(r)).collect();
    let mut shielded = policy.shielded.clone();
    shielded.extend(
        nested
            .iter()
            .flat_map(|git| [git.join("hooks"), git.join("config")]),
    );
    let mut pinned: Vec<PathBuf> = roots
        .iter()
        .map(|root| root.join(".git"))
        .filter(|git| git.is_dir())
        .chain(nested)
        .collect();
    if policy.mode == crate::sandbox::SandboxMode::WorkspaceWrite {
        pinned.extend(crate::sandbox::tandem_dir_ancestors(
            &policy.writable,
            &policy.project,
        ));
    }
    let real = |paths: &[PathBuf]| -> Vec<CString> {
        paths
            .iter()
            .filter_map(|path| std::fs::canonicalize(path).ok())
            .filter(|real| policy.may_write(real))
            .filter_map(|real| CString::new(real.as_os_str().as_bytes()).ok())
            .collect()
    };
    let (paths, pins) = (real(&shielded), real(&pinned));
    (!paths.is_empty() || !pins.is_empty()).then(|| PrivateMounts::read_only(paths).pinning(pins))
}

/// Whether this machine lets a process make the shield (user namespaces allowed and mounts in
/// them permitted): tried once, on the temp dir.
pub fn available() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        let dir = std::env::temp_dir();
        CString::new(dir.as_os_str().as_bytes())
            .is_ok_and(|c_dir| PrivateMounts::read_only(vec![c_dir]).work_here())
    })
}
