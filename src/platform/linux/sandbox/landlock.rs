//! Landlock: the ruleset a policy becomes, built in Tandem (the parent), and the two system
//! calls the child makes between fork and exec to take it on (nothing there allocates).

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
    Scope, path_beneath_rules,
};

use crate::sandbox::{Policy, SandboxMode, Support};

/// The newest rules Tandem uses (network rules, scopes, named Unix sockets); older kernels get
/// what they have.
const TARGET: ABI = ABI::V9;

/// Devices any command writes to (`> /dev/null`, a terminal): writable in every mode.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/random",
    "/dev/urandom",
];

/// The kernel's Landlock ABI version, if it has Landlock.
pub fn probe() -> Support {
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
        Support::Landlock { abi: abi as i32 }
    } else {
        Support::Missing(format!(
            "this kernel has no Landlock: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// A policy made into a Landlock ruleset, ready for children to take on. Keep it alive until
/// the child has been spawned.
#[derive(Debug)]
pub struct Prepared {
    /// None: nothing to restrict.
    ruleset: Option<OwnedFd>,
    /// With the network off: the seccomp filter refusing non-Unix sockets.
    filter: Option<std::sync::Arc<[super::seccomp::Instruction]>>,
    /// Read-only mounts over what must never be written beneath writable places.
    shield: Option<std::sync::Arc<super::shield::Shield>>,
}

impl Prepared {
    /// Builds the ruleset for `policy`: read and run anything; write only where it allows;
    /// no TCP and no abstract sockets outside when the network is off.
    pub fn new(policy: &Policy) -> Result<Self, RulesetError> {
        if policy.is_off() {
            return Ok(Self {
                ruleset: None,
                filter: None,
                shield: None,
            });
        }
        let restrict_files = policy.mode != SandboxMode::Off;
        let mut ruleset = Ruleset::default();
        if restrict_files {
            ruleset = ruleset.handle_access(AccessFs::from_all(TARGET))?;
        }
        if !policy.network {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
        }
        if !policy.network || restrict_files {
            ruleset = ruleset.scope(Scope::AbstractUnixSocket)?;
        }
        let mut created = ruleset.create()?;
        if restrict_files {
            // Writable places do not make their sockets reachable (tmux's and others live in
            // the temp dir): only the project's and those the config names.
            let write = AccessFs::from_all(TARGET) & !AccessFs::ResolveUnix;
            let sockets = std::iter::once(&policy.project)
                .chain(&policy.sockets)
                .filter(|p| !p.as_os_str().is_empty());
            created = created
                .add_rules(path_beneath_rules(["/"], AccessFs::from_read(TARGET)))?
                .add_rules(path_beneath_rules(DEVICES, AccessFs::from_all(TARGET)))?
                .add_rules(path_beneath_rules(&policy.writable, write))?
                .add_rules(path_beneath_rules(sockets, AccessFs::ResolveUnix))?;
        }
        // Where Landlock cannot tell named sockets apart, seccomp refuses Unix sockets unless
        // the config allows some (then all: it cannot see paths either).
        let landlock_sockets = matches!(
            crate::sandbox::support(),
            Support::Landlock { abi } if *abi >= crate::sandbox::RESOLVE_UNIX
        );
        let unix = !restrict_files || landlock_sockets || !policy.sockets.is_empty();
        let shield = restrict_files
            .then(|| super::shield::Shield::new(policy))
            .flatten()
            .map(std::sync::Arc::new);
        Ok(Self {
            ruleset: created.into(),
            filter: super::seccomp::sockets(policy.network, unix),
            shield,
        })
    }

    /// Takes the ruleset on in this process (single-threaded, about to exec).
    pub fn restrict_this_process(&self) -> std::io::Result<()> {
        let Some(ruleset) = &self.ruleset else {
            return Ok(());
        };
        enter(
            ruleset.as_raw_fd(),
            self.filter.as_deref(),
            self.shield.as_deref(),
        )
    }

    /// Makes the child `command` starts take the ruleset on before it execs.
    pub fn apply(&self, command: &mut tokio::process::Command) {
        let Some(ruleset) = &self.ruleset else {
            return;
        };
        let fd = ruleset.as_raw_fd();
        let filter = self.filter.clone();
        let shield = self.shield.clone();
        // SAFETY: the hook only makes system calls and builds errors from errno (nothing
        // allocates); the ruleset's fd stays open in the parent until the spawn returns.
        unsafe {
            command.pre_exec(move || enter(fd, filter.as_deref(), shield.as_deref()));
        }
    }
}

/// Takes the ruleset `fd` (and the network filter) on: the shield, `no_new_privs`, Landlock,
/// then seccomp. Only system calls: safe between fork and exec.
fn enter(
    fd: i32,
    filter: Option<&[super::seccomp::Instruction]>,
    shield: Option<&super::shield::Shield>,
) -> std::io::Result<()> {
    // The shield first (Landlock then forbids undoing its mounts); where this machine allows
    // no user namespaces it is left out, as `Coverage` says.
    if let Some(shield) = shield {
        let _ = shield.enter();
    }
    // SAFETY: plain system calls on an fd the caller keeps open.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            || libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    match filter {
        Some(filter) => super::seccomp::install(filter),
        None => Ok(()),
    }
}
