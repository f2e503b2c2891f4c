//! Other systems: no kernel sandbox, so every policy is reported as unavailable (commands run
//! unsandboxed after one warning, or are refused with `required`). Not built by this CI.

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
