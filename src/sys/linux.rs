//! Linux's own system calls, behind safe functions: dying with the parent, the Landlock ABI
//! probe, and the confinement a child takes on between fork and exec (private read-only
//! mounts, `no_new_privs`, a Landlock ruleset, a seccomp filter), which the sandbox prepares.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::sync::Arc;

/// One classic BPF instruction of a seccomp filter.
pub type FilterInstruction = libc::sock_filter;

/// Makes a child about to be started die with Tandem, even when Tandem is SIGKILLed.
pub fn die_with_parent(command: &mut std::process::Command) {
    // SAFETY: the hook makes one system call, which is async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// Makes this process the child subreaper of its descendants: one orphaned anywhere below it
/// (a double fork, `setsid`) becomes its child instead of init's. True if the kernel agreed.
pub fn become_child_subreaper() -> bool {
    // SAFETY: prctl sets a flag of this process and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
}

/// The kernel's Landlock ABI version, or why it has none.
pub fn landlock_abi() -> io::Result<i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: with a null attribute and this flag the call only returns the ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi >= 1 {
        Ok(abi as i32)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// This process's user and group ids.
fn ids() -> (u32, u32) {
    // SAFETY: getuid and getgid cannot fail and touch no memory.
    unsafe { (libc::getuid(), libc::getgid()) }
}

/// The mount flags a read-only remount of `path` must keep (a namespace may not drop `nosuid`,
/// `nodev` or `noexec` that the mount it copies has); 0 when it cannot be read.
fn mount_flags_to_keep(path: &CStr) -> libc::c_ulong {
    // SAFETY: an all-zero statvfs is a valid value of this plain C struct.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: statvfs reads the NUL-terminated path and writes only into `stat`, which we own.
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

/// Read-only bind mounts made in a private user and mount namespace: everything prepared
/// before the fork, so entering it allocates nothing.
#[derive(Debug)]
pub struct PrivateMounts {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Each path with the flags its remount keeps.
    read_only: Vec<(CString, libc::c_ulong)>,
    /// Folders made mount points of themselves, writable as before: a mount point cannot be
    /// renamed or removed, so a git directory stays where git and the shield look for it.
    pinned: Vec<CString>,
}

impl PrivateMounts {
    /// Mounts making each of `paths` read-only, mapping this process's own ids.
    pub fn read_only(paths: Vec<CString>) -> Self {
        let (uid, gid) = ids();
        Self {
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
            read_only: paths
                .into_iter()
                .map(|p| {
                    let flags = mount_flags_to_keep(&p);
                    (p, flags)
                })
                .collect(),
            pinned: Vec::new(),
        }
    }

    /// Also pins each of `paths` in place (see `pinned`).
    pub fn pinning(mut self, paths: Vec<CString>) -> Self {
        self.pinned = paths;
        self
    }

    /// Makes the namespaces and the mounts. Only system calls: safe between fork and exec.
    fn enter(&self) -> io::Result<()> {
        let fail = || Err(io::Error::last_os_error());
        // SAFETY: unshare only changes this process's namespaces.
        if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
            return fail();
        }
        write_file(c"/proc/self/setgroups", b"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)?;
        let none = std::ptr::null();
        let private = libc::MS_REC | libc::MS_PRIVATE;
        // SAFETY: mount reads the NUL-terminated target; the other pointers are null.
        if unsafe { libc::mount(none, c"/".as_ptr(), none, private, none.cast()) } != 0 {
            return fail();
        }
        for (path, flags) in &self.read_only {
            let p = path.as_ptr();
            let remount = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags;
            // SAFETY: `p` is NUL-terminated and outlives both calls; the rest are null.
            unsafe {
                if libc::mount(p, p, none, libc::MS_BIND | libc::MS_REC, none.cast()) != 0
                    || libc::mount(none, p, none, remount, none.cast()) != 0
                {
                    return fail();
                }
            }
        }
        // Pinned after the read-only mounts, which the recursive bind copies: a process whose
        // working folder lies in the tree beneath a pin still meets them.
        for path in &self.pinned {
            let p = path.as_ptr();
            // SAFETY: `p` is NUL-terminated and outlives the call; the rest are null.
            if unsafe { libc::mount(p, p, none, libc::MS_BIND | libc::MS_REC, none.cast()) } != 0 {
                return fail();
            }
        }
        Ok(())
    }

    /// Whether this machine lets a child make these mounts (runs `true` inside them).
    pub fn work_here(self) -> bool {
        let mut probe = std::process::Command::new("true");
        probe
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: the hook only makes system calls on memory prepared before the fork.
        unsafe {
            probe.pre_exec(move || self.enter());
        }
        probe.status().is_ok_and(|s| s.success())
    }
}

/// Writes `bytes` to `path` with raw system calls (no allocation).
fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open reads the NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: write reads `bytes.len()` bytes of the slice; the fd is ours and closed after.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    // SAFETY: closes the fd opened above, once.
    unsafe { libc::close(fd) };
    if written != bytes.len() as isize {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What a child takes on before it execs, in this order: the private mounts (where this
/// machine allows them), `no_new_privs`, the Landlock ruleset, then the seccomp filter.
#[derive(Debug)]
pub struct Confinement {
    /// The Landlock ruleset's fd, kept open until the children are spawned.
    pub ruleset: OwnedFd,
    pub filter: Option<Arc<[FilterInstruction]>>,
    pub mounts: Option<Arc<PrivateMounts>>,
}

impl Confinement {
    /// Takes it on in this process (single-threaded, about to exec).
    pub fn enter_now(&self) -> io::Result<()> {
        enter(
            self.ruleset.as_raw_fd(),
            self.filter.as_deref(),
            self.mounts.as_deref(),
        )
    }

    /// Makes the child `command` starts take it on before it execs.
    pub fn apply(&self, command: &mut std::process::Command) {
        let fd = self.ruleset.as_raw_fd();
        let filter = self.filter.clone();
        let mounts = self.mounts.clone();
        // SAFETY: the hook only makes system calls and builds errors from errno (nothing
        // allocates); the ruleset's fd stays open in the parent until the spawn returns.
        unsafe {
            command.pre_exec(move || enter(fd, filter.as_deref(), mounts.as_deref()));
        }
    }
}

/// Only system calls: safe between fork and exec.
fn enter(
    ruleset: RawFd,
    filter: Option<&[FilterInstruction]>,
    mounts: Option<&PrivateMounts>,
) -> io::Result<()> {
    // The mounts first (Landlock then forbids undoing them); where this machine allows no user
    // namespaces they are left out, as the sandbox's coverage says.
    if let Some(mounts) = mounts {
        let _ = mounts.enter();
    }
    // SAFETY: prctl sets a flag of this process; landlock_restrict_self reads an fd the caller
    // keeps open.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32) != 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    match filter {
        Some(filter) => install_seccomp(filter),
        None => Ok(()),
    }
}

/// Installs `filter` on the calling thread; `no_new_privs` must already be set. One system
/// call, no allocation.
fn install_seccomp(filter: &[FilterInstruction]) -> io::Result<()> {
    let program = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: `program` points at `filter`, which outlives the call; the kernel copies it.
    let done = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER as libc::c_ulong,
            &program as *const libc::sock_fprog,
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
