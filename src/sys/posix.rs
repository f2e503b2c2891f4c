//! What every Unix system offers alike, behind safe functions: signals to process groups,
//! checking a process or whether a path is writable, the no-follow open flag, and where the
//! local day began.

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

/// Collects child `pid` if it has ended (a zombie no one else waits for); true if it had.
pub fn reap(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: waitpid on one pid with WNOHANG only writes the status integer it is given.
    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) == pid }
}

/// Whether process `pid` is still running (signal 0 checks without sending anything).
pub fn process_exists(pid: u32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists and may be signalled.
    let result = unsafe { libc::kill(pid as libc::pid_t, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether this process may write `path` (the permission bits and its own credentials).
pub fn writable_by_us(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access only reads the NUL-terminated path.
    unsafe { libc::access(c_path.as_ptr(), libc::W_OK) == 0 }
}

/// How many seconds of the local day had passed at `seconds` since the epoch (the time zone's
/// offset and summer time applied); None when the C library cannot tell.
pub fn seconds_into_local_day(seconds: i64) -> Option<i64> {
    let time = seconds as libc::time_t;
    // SAFETY: a zeroed `tm` is a valid value of the plain C struct.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r reads `time` and writes only into `tm`, both alive for the call.
    let converted = unsafe { !libc::localtime_r(&time, &mut tm).is_null() };
    converted
        .then(|| i64::from(tm.tm_hour) * 3600 + i64::from(tm.tm_min) * 60 + i64::from(tm.tm_sec))
}
