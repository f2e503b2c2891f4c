//! The process groups Tandem's commands and MCP servers run in, so that whatever ends Tandem
//! ends them: each group is listed while it lives (here, and with the watchdog that outlives a
//! SIGKILL), and `kill_all` (on a signal) kills every one at once.

use std::collections::HashSet;
use std::sync::Mutex;

static LIVE: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<HashSet<i32>>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// A process group Tandem started; killed (SIGKILL to the whole group) when dropped.
pub struct GroupGuard(Option<i32>);

impl GroupGuard {
    /// Watches the group `pgid` (the leader's pid, for a child started with `process_group(0)`).
    pub fn new(pgid: Option<i32>) -> Self {
        if let Some(pgid) = pgid {
            register(pgid);
        }
        Self(pgid)
    }

    /// Lets the group outlive the call (background jobs started on purpose); it is still
    /// killed when Tandem itself is ended by a signal.
    pub fn release(&mut self) {
        self.0 = None;
    }

    pub fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            kill_group(pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Lists group `pgid` (a child started with `process_group(0)`) to be killed with Tandem.
pub fn register(pgid: i32) {
    live().get_or_insert_with(HashSet::new).insert(pgid);
    super::reaper::watch(pgid);
}

/// When a group was last unlisted (seconds since the epoch).
static LAST_UNLISTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Whether something Tandem started may still run or have just left orphans behind: a group
/// is listed, or one was unlisted in the last few seconds.
pub fn recently_active() -> bool {
    let last = LAST_UNLISTED.load(std::sync::atomic::Ordering::Relaxed);
    live().as_ref().is_some_and(|set| !set.is_empty()) || now_secs().saturating_sub(last) < 5
}

/// Whether group `pgid` is one Tandem started (or found escaped) and still lists.
pub fn is_listed(pgid: i32) -> bool {
    live().as_ref().is_some_and(|set| set.contains(&pgid))
}

/// Kills group `pgid` (SIGKILL to every process in it) and unlists it.
pub fn kill_group(pgid: i32) {
    LAST_UNLISTED.store(now_secs(), std::sync::atomic::Ordering::Relaxed);
    crate::sys::kill_group(pgid);
    if let Some(set) = live().as_mut() {
        set.remove(&pgid);
    }
    super::reaper::forget(pgid);
}

/// Kills every group still running: for a process about to exit without unwinding its tasks.
pub fn kill_all() {
    let groups: Vec<i32> = live()
        .as_mut()
        .map(|set| set.drain().collect())
        .unwrap_or_default();
    // The watchdog kills what this misses.
    for pgid in groups {
        crate::sys::kill_group(pgid);
    }
}

/// Makes a child about to be started die with Tandem, even when Tandem is SIGKILLed (Linux).
pub fn die_with_parent(command: &mut tokio::process::Command) {
    crate::sys::die_with_parent(command.as_std_mut());
}
