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

/// The read-only mounts for `policy`: the candidates that exist and that it could otherwise
/// write.
pub(super) fn mounts(policy: &Policy) -> Option<PrivateMounts> {
    let paths: Vec<CString> = policy
        .shielded
        .iter()
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .filter(|real| policy.may_write(real))
        .filter_map(|real| CString::new(real.as_os_str().as_bytes()).ok())
        .collect();
    (!paths.is_empty()).then(|| PrivateMounts::read_only(paths))
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
