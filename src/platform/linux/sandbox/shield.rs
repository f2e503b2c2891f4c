//! Read-only bind mounts over what a command must never write even where it may write around it
//! (the project's protected files: git's hooks and config, Tandem's and OpenCode's config,
//! direnv and editor tasks; Tandem's own data and config), made in a private user and mount
//! namespace between fork and exec, before Landlock, which then forbids undoing them.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::sandbox::Policy;

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

/// What the child does: its uid and gid maps, and each path with the mount flags it keeps.
#[derive(Debug)]
pub(super) struct Shield {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    paths: Vec<(CString, libc::c_ulong)>,
}

impl Shield {
    /// The shield for `policy`: the candidates that exist and that it could otherwise write.
    pub fn new(policy: &Policy) -> Option<Self> {
        let mut paths = Vec::new();
        for path in &policy.shielded {
            let Ok(real) = std::fs::canonicalize(path) else {
                continue;
            };
            if !policy.may_write(&real) {
                continue;
            }
            let Ok(c_path) = CString::new(real.as_os_str().as_bytes()) else {
                continue;
            };
            paths.push((c_path.clone(), kept_flags(&c_path)));
        }
        if paths.is_empty() {
            return None;
        }
        // SAFETY: getuid and getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Some(Self {
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
            paths,
        })
    }

    /// Makes the namespaces and the read-only mounts. Only system calls on memory prepared
    /// before the fork: safe between fork and exec.
    pub fn enter(&self) -> std::io::Result<()> {
        let fail = || Err(std::io::Error::last_os_error());
        // SAFETY: plain system calls with NUL-terminated paths that outlive them.
        unsafe {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                return fail();
            }
            write_file(c"/proc/self/setgroups", b"deny")?;
            write_file(c"/proc/self/uid_map", &self.uid_map)?;
            write_file(c"/proc/self/gid_map", &self.gid_map)?;
            let none = std::ptr::null();
            if libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                none.cast(),
            ) != 0
            {
                return fail();
            }
            for (path, flags) in &self.paths {
                let p = path.as_ptr();
                if libc::mount(p, p, none, libc::MS_BIND | libc::MS_REC, none.cast()) != 0 {
                    return fail();
                }
                let remount = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags;
                if libc::mount(none, p, none, remount, none.cast()) != 0 {
                    return fail();
                }
            }
        }
        Ok(())
    }
}

/// The flags a remount must keep (a namespace may not drop `nosuid`, `nodev` or `noexec` that
/// the mount it copies has).
fn kept_flags(path: &CString) -> libc::c_ulong {
    // SAFETY: statvfs writes into the zeroed struct we own.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return 0;
    }
    let mut flags = 0;
    for (st, ms) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if stat.f_flag & st != 0 {
            flags |= ms;
        }
    }
    flags
}

/// Writes `bytes` to `path` with raw system calls (no allocation).
unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: the caller passes a NUL-terminated path; the fd is closed before returning.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        libc::close(fd);
        if written != bytes.len() as isize {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether this machine lets a process make the shield (user namespaces allowed and mounts in
/// them permitted): tried once, on `true`.
pub fn available() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        let dir = std::env::temp_dir();
        let Ok(c_dir) = CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        let shield = Shield {
            uid_map: {
                // SAFETY: getuid cannot fail.
                let uid = unsafe { libc::getuid() };
                format!("{uid} {uid} 1").into_bytes()
            },
            gid_map: {
                // SAFETY: getgid cannot fail.
                let gid = unsafe { libc::getgid() };
                format!("{gid} {gid} 1").into_bytes()
            },
            paths: vec![(c_dir.clone(), kept_flags(&c_dir))],
        };
        let mut probe = std::process::Command::new("true");
        probe
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        use std::os::unix::process::CommandExt;
        // SAFETY: the hook only makes system calls (see `Shield::enter`).
        unsafe {
            probe.pre_exec(move || shield.enter());
        }
        probe.status().is_ok_and(|s| s.success())
    })
}
