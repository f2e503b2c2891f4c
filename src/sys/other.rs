//! Other Unix systems: the same safe functions as on Linux where POSIX has them. Not built or
//! tested by this project's CI; Tandem is released for Linux only.

/// No child subreaper here: orphans go to init.
pub fn become_child_subreaper() -> bool {
    false
}

/// No parent-death signal here: the watchdog (`tandem reaper`) is what kills orphans.
pub fn die_with_parent(_command: &mut std::process::Command) {}
