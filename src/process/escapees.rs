//! Processes that leave the group Tandem started them in (`setsid`, `set -m`, a double fork)
//! come back to it: Tandem is their child subreaper, so once orphaned they are its children.
//! A sweep finds them and lists their groups like any other (the watchdog ends them if Tandem
//! is SIGKILLed); they are ended with their session, and with Tandem.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The groups of processes found escaped (their leaders' pids).
static ESCAPED: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn escaped() -> std::sync::MutexGuard<'static, Option<HashSet<i32>>> {
    ESCAPED.lock().unwrap_or_else(|p| p.into_inner())
}

/// How Tandem keeps track of processes that leave their group, for `tandem doctor`.
pub fn how() -> &'static str {
    if *ADOPTING.get_or_init(crate::sys::become_child_subreaper) {
        "Tandem is their child subreaper: they come back to it when orphaned and end with \
         their session or with Tandem (no cgroup is used)"
    } else {
        "not held: this system offers no child subreaper, so they can outlive Tandem"
    }
}

static ADOPTING: OnceLock<bool> = OnceLock::new();

/// Makes Tandem the subreaper of everything it starts, and sweeps for escaped processes once a
/// second while commands run (so that the watchdog knows them). Call once, early.
pub fn adopt() {
    let adopting = *ADOPTING.get_or_init(crate::sys::become_child_subreaper);
    if !adopting {
        return;
    }
    let started = std::thread::Builder::new()
        .name("tandem-sweep".into())
        .spawn(|| {
            loop {
                std::thread::sleep(Duration::from_secs(1));
                // Nothing was started (or nothing still runs): nothing can have escaped.
                if super::groups::recently_active() || any() {
                    sweep();
                }
            }
        });
    if let Err(error) = started {
        tracing::warn!(%error, "cannot watch for processes that leave their group");
    }
}

/// One process's place, from `/proc/<pid>/stat`: `(ppid, pgid, zombie)`.
fn place(pid: i32) -> Option<(i32, i32, bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    Some((ppid, pgid, state == "Z"))
}

/// Whether any escaped process is known to be running.
pub fn any() -> bool {
    escaped().as_ref().is_some_and(|set| !set.is_empty())
}

/// Finds this process's children that are in a group of their own Tandem did not start (they
/// were orphaned into it), lists their groups, and collects the ones that already ended.
pub fn sweep() -> Vec<i32> {
    let me = std::process::id() as i32;
    let Some((_, my_group, _)) = place(me) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for pid in entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
    {
        let Some((ppid, pgid, zombie)) = place(pid) else {
            continue;
        };
        if ppid != me || pgid == my_group || super::reaper::is_watchdog(pid) {
            continue;
        }
        let mut escaped = escaped();
        let set = escaped.get_or_insert_with(HashSet::new);
        if zombie {
            if set.contains(&pid) || !super::groups::is_listed(pgid) {
                crate::sys::reap(pid);
            }
            continue;
        }
        if super::groups::is_listed(pgid) {
            continue;
        }
        set.insert(pgid);
        drop(escaped);
        super::groups::register(pgid);
        found.push(pgid);
    }
    found
}

/// Ends every escaped process (and what escapes from those as they die), and collects them.
pub fn end_all() {
    for _ in 0..4 {
        sweep();
        let groups: Vec<i32> = escaped()
            .as_mut()
            .map(|set| set.drain().collect())
            .unwrap_or_default();
        if groups.is_empty() {
            return;
        }
        for pgid in &groups {
            super::groups::kill_group(*pgid);
        }
        std::thread::sleep(Duration::from_millis(20));
        for pgid in groups {
            crate::sys::reap(pgid);
        }
    }
}
