//! What the sandbox really holds on this kernel, said exactly: which protections Landlock (at
//! the ABI the kernel enforces) or the seccomp filter give a policy, and which are missing.

use super::{Policy, SandboxMode, Support};

/// The Landlock ABI that adds each protection.
const REFER: i32 = 2;
const TRUNCATE: i32 = 3;
const TCP: i32 = 4;
const IOCTL: i32 = 5;
const SCOPES: i32 = 6;
/// `LANDLOCK_ACCESS_FS_RESOLVE_UNIX`: connecting to named Unix sockets.
pub const RESOLVE_UNIX: i32 = 9;

/// What a policy gets here: what is protected and by what, and what is not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The Landlock ABI the kernel enforces (0: none).
    pub abi: i32,
    pub protected: Vec<String>,
    pub gaps: Vec<String>,
}

impl Coverage {
    /// The coverage of `policy` on a machine with `support`.
    pub fn of(policy: &Policy, support: &Support) -> Self {
        let abi = match support {
            Support::Landlock { abi } => *abi,
            Support::Missing(_) => 0,
        };
        let mut coverage = Coverage {
            abi,
            ..Self::default()
        };
        if policy.is_off() {
            return coverage;
        }
        if abi == 0 {
            coverage.gaps.push(format!(
                "nothing: there is no sandbox here ({})",
                support.describe()
            ));
            return coverage;
        }
        let files = policy.mode != SandboxMode::Off;
        if files {
            coverage.protect("writes outside the writable places (Landlock)");
            if policy.mode == SandboxMode::WorkspaceWrite && !policy.shielded.is_empty() {
                if super::kernel::shield_available() {
                    coverage.protect(
                        "git hooks and config, Tandem's and OpenCode's config and Tandem's data \
                         beneath writable places (read-only mounts)",
                    );
                } else {
                    coverage.gap(
                        "git hooks and config, Tandem's and OpenCode's config and Tandem's data \
                         beneath writable places (this machine allows no user namespaces)",
                    );
                }
            }
            coverage.by_abi(
                abi >= REFER,
                "moving or linking files across folders",
                REFER,
            );
            coverage.by_abi(abi >= TRUNCATE, "truncating files", TRUNCATE);
            coverage.by_abi(abi >= IOCTL, "ioctl on devices", IOCTL);
        }
        if !policy.network {
            if abi >= TCP {
                coverage.protect("TCP connections and listening (Landlock and seccomp)");
            } else if super::kernel::SECCOMP_AVAILABLE {
                coverage.protect("TCP connections and listening (seccomp: no TCP sockets)");
            } else {
                coverage.gap(format!(
                    "TCP connections and listening (needs Landlock ABI {TCP}+ on this CPU)"
                ));
            }
            if super::kernel::SECCOMP_AVAILABLE {
                coverage.protect("UDP, raw and netlink sockets (seccomp)");
            } else {
                coverage.gap("UDP, raw and netlink sockets (no seccomp filter for this CPU)");
            }
        }
        if files {
            coverage.unix_sockets(policy, abi);
        }
        coverage
    }

    fn protect(&mut self, what: impl Into<String>) {
        self.protected.push(what.into());
    }

    fn gap(&mut self, what: impl Into<String>) {
        self.gaps.push(what.into());
    }

    fn by_abi(&mut self, held: bool, what: &str, needs: i32) {
        if held {
            self.protect(format!("{what} (Landlock)"));
        } else {
            self.gap(format!("{what} (needs Landlock ABI {needs}+)"));
        }
    }

    fn unix_sockets(&mut self, policy: &Policy, abi: i32) {
        if abi >= RESOLVE_UNIX {
            self.protect("named Unix sockets outside the project and unix_sockets (Landlock)");
        } else if !super::kernel::SECCOMP_AVAILABLE {
            self.gap("named Unix sockets (no seccomp filter for this CPU)");
        } else if policy.sockets.is_empty() {
            self.protect(
                "Unix sockets: all refused, socketpair excepted (seccomp; Landlock ABI 9+ \
                 would allow the project's own)",
            );
        } else {
            self.gap(format!(
                "named Unix sockets anywhere (unix_sockets is set and Landlock ABI {abi} cannot \
                 tell sockets apart; ABI {RESOLVE_UNIX}+ can)"
            ));
        }
        if abi >= SCOPES {
            self.protect("abstract Unix sockets outside the sandbox (Landlock)");
        }
    }

    /// One paragraph: "Landlock ABI 7. Protected: …. Not protected: …."
    pub fn describe(&self) -> String {
        let head = if self.abi > 0 {
            format!("Landlock ABI {}.", self.abi)
        } else {
            "No Landlock.".to_owned()
        };
        format!("{head}{}", self.details())
    }

    /// " Protected: …. Not protected: …." (empty when nothing is restricted).
    pub fn details(&self) -> String {
        let mut text = String::new();
        if !self.protected.is_empty() {
            text.push_str(&format!(" Protected: {}.", self.protected.join("; ")));
        }
        if !self.gaps.is_empty() {
            text.push_str(&format!(" Not protected: {}.", self.gaps.join("; ")));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SandboxConfig;
    use std::path::Path;

    fn policy(network: bool, sockets: bool) -> Policy {
        let config = SandboxConfig {
            network: Some(network),
            unix_sockets: sockets.then(|| vec!["/run/docker.sock".into()]),
            ..Default::default()
        };
        Policy::resolve(Some(&config), Path::new("/work/p"))
    }

    #[test]
    fn each_abi_says_what_it_holds_and_what_it_does_not() {
        let old = Coverage::of(&policy(false, false), &Support::Landlock { abi: 1 });
        let gaps = old.gaps.join("\n");
        assert!(gaps.contains("moving or linking files across folders (needs Landlock ABI 2+)"));
        assert!(gaps.contains("truncating files (needs Landlock ABI 3+)"));
        assert!(
            old.protected
                .iter()
                .any(|p| p.contains("TCP") && p.contains("seccomp"))
        );
        let new = Coverage::of(&policy(true, false), &Support::Landlock { abi: 9 });
        assert!(new.gaps.is_empty(), "{:?}", new.gaps);
        let listed = Coverage::of(&policy(true, true), &Support::Landlock { abi: 7 });
        assert!(listed.gaps[0].contains("cannot tell sockets apart"));
        let none = Coverage::of(&policy(true, false), &Support::Missing("no".into()));
        assert!(none.gaps[0].starts_with("nothing"));
    }
}
