//! Other Unix systems: the same safe functions as on Linux where POSIX has them, and no kernel
//! sandbox (commands run unsandboxed after one warning, or are refused with `required`).
//! Not built or tested by this project's CI; Tandem is released for Linux only.

use std::path::Path;

/// `open(2)`'s flag to refuse a symlink in the last component.
pub const NO_FOLLOW: i32 = libc::O_NOFOLLOW;

/// Sends SIGKILL to every process in group `pgid`.
pub fn kill_group(pgid: i32) {
    // SAFETY: killpg only sends a signal.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Whether process `pid` is still running.
pub fn process_exists(pid: u32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists and may be signalled.
    let result = unsafe { libc::kill(pid as libc::pid_t, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// No parent-death signal here: the watchdog (`tandem reaper`) is what kills orphans.
pub fn die_with_parent(_command: &mut tokio::process::Command) {}

/// Whether this process may write `path`.
pub fn writable_by_us(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access only reads the NUL-terminated path.
    unsafe { libc::access(c_path.as_ptr(), libc::W_OK) == 0 }
}

/// No kernel sandbox: every policy is reported as unavailable.
pub mod sandbox {
    use std::path::{Path, PathBuf};

    use crate::sandbox::{Policy, Support};

    pub const SECCOMP_AVAILABLE: bool = false;

    pub fn probe() -> Support {
        Support::Missing("this system has no Landlock (Tandem sandboxes commands on Linux)".into())
    }

    pub fn shield_available() -> bool {
        false
    }

    pub fn shield_candidates(_project: &Path, _allowed: &[PathBuf]) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Never built: `probe` says there is no sandbox, so callers never ask for one.
    #[derive(Debug)]
    pub struct Prepared;

    impl Prepared {
        pub fn new(_policy: &Policy) -> Result<Self, String> {
            Err("no sandbox on this system".into())
        }

        pub fn restrict_this_process(&self) -> std::io::Result<()> {
            Ok(())
        }

        pub fn apply(&self, _command: &mut tokio::process::Command) {}
    }
}
