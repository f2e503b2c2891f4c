//! Landlock: the ruleset a policy becomes, built in Tandem (the parent) with the seccomp filter
//! and the shield beside it, for `sys` to have the child take on between fork and exec.

use landlock::{
    ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetError,
    Scope, path_beneath_rules,
};

use crate::sandbox::{Policy, SandboxMode, Support};
use crate::sys::Confinement;

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
    match crate::sys::landlock_abi() {
        Ok(abi) => Support::Landlock { abi },
        Err(why) => Support::Missing(format!("this kernel has no Landlock: {why}")),
    }
}

/// A policy made into a Landlock ruleset, ready for children to take on. Keep it alive until
/// the child has been spawned.
#[derive(Debug)]
pub struct Prepared {
    /// None: nothing to restrict.
    confinement: Option<Confinement>,
}

impl Prepared {
    /// Builds the ruleset for `policy`: read and run anything; write only where it allows;
    /// no TCP and no abstract sockets outside when the network is off.
    pub fn new(policy: &Policy) -> Result<Self, RulesetError> {
        if policy.is_off() {
            return Ok(Self { confinement: None });
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
        let mounts = restrict_files
            .then(|| super::shield::mounts(policy))
            .flatten()
            .map(std::sync::Arc::new);
        let confinement =
            Option::<std::os::fd::OwnedFd>::from(created).map(|ruleset| Confinement {
                ruleset,
                filter: super::seccomp::sockets(policy.network, unix),
                mounts,
            });
        Ok(Self { confinement })
    }

    /// Takes the ruleset on in this process (single-threaded, about to exec).
    pub fn restrict_this_process(&self) -> std::io::Result<()> {
        match &self.confinement {
            Some(confinement) => confinement.enter_now(),
            None => Ok(()),
        }
    }

    /// Makes the child `command` starts take the ruleset on before it execs.
    pub fn apply(&self, command: &mut tokio::process::Command) {
        if let Some(confinement) = &self.confinement {
            confinement.apply(command.as_std_mut());
        }
    }
}
