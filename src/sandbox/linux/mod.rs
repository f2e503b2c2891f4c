//! The sandbox on Linux: a policy made into a Landlock ruleset, the seccomp filter for what
//! Landlock leaves open, and the read-only mounts of the shield; `sys` applies them.

mod landlock;
mod seccomp;
mod shield;

pub use self::landlock::{Prepared, probe};
pub use self::shield::{available as shield_available, candidates as shield_candidates};

/// Whether this CPU gets the seccomp filter (Tandem knows its system call numbers).
pub const SECCOMP_AVAILABLE: bool = seccomp::AVAILABLE;
