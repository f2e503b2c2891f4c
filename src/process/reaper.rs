//! A watchdog that outlives Tandem however it dies: a copy of the binary (`tandem reaper`,
//! hidden) in a process group of its own, told of each process group Tandem starts through a
//! pipe only Tandem holds; when the pipe closes (Tandem exited or was SIGKILLed), it kills
//! every group still listed, grandchildren and background jobs included.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The pipe to the watchdog: None until the first group, Some(None) when it cannot start.
static PIPE: Mutex<Option<Option<ChildStdin>>> = Mutex::new(None);
/// The watchdog's pid, once started.
static WATCHDOG: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Whether `pid` is the watchdog (a child of Tandem's that no sweep may end).
pub fn is_watchdog(pid: i32) -> bool {
    WATCHDOG.load(std::sync::atomic::Ordering::Relaxed) == pid
}

/// Tells the watchdog (started on first use) to kill group `pgid` if Tandem dies.
pub fn watch(pgid: i32) {
    let Some(start) = start_time(pgid) else {
        return;
    };
    tell(&format!("+{pgid} {start}\n"));
}

/// The group ended (or was killed by Tandem): the watchdog forgets it.
pub fn forget(pgid: i32) {
    tell(&format!("-{pgid}\n"));
}

fn tell(line: &str) {
    let mut pipe = PIPE.lock().unwrap_or_else(|p| p.into_inner());
    let pipe = pipe.get_or_insert_with(spawn);
    if let Some(stdin) = pipe
        && stdin.write_all(line.as_bytes()).is_err()
    {
        tracing::warn!("the process watchdog is gone; commands may outlive a crash");
        *pipe = None;
    }
}

fn spawn() -> Option<ChildStdin> {
    let exe = std::env::current_exe().ok()?;
    let spawned = Command::new(exe)
        .arg("reaper")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group: a signal to Tandem's group (Ctrl-C, an editor ending it) spares it.
        .process_group(0)
        .spawn();
    match spawned {
        Ok(mut child) => {
            WATCHDOG.store(child.id() as i32, std::sync::atomic::Ordering::Relaxed);
            child.stdin.take()
        }
        Err(error) => {
            tracing::warn!(%error, "cannot start the process watchdog");
            None
        }
    }
}

/// When process `pid` started (clock ticks since boot), from `/proc`; None if it is gone.
fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): state is field 3, start 22.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// The watchdog's life: read `+pgid start` and `-pgid` lines until the pipe closes, then kill
/// each listed group whose leader is the process that was registered (or is gone: a group id
/// is not reused while any process is still in the group).
pub fn run_watchdog() {
    let mut groups: HashMap<i32, u64> = HashMap::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let (sign, rest) = line.split_at(line.len().min(1));
        let mut fields = rest.split_whitespace();
        let Some(pgid) = fields.next().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        match sign {
            "+" => {
                let start = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                groups.insert(pgid, start);
            }
            "-" => {
                groups.remove(&pgid);
            }
            _ => {}
        }
    }
    for (pgid, start) in groups {
        if pgid <= 1 || start_time(pgid).is_some_and(|now| now != start) {
            continue;
        }
        // A group Tandem started.
        crate::sys::kill_group(pgid);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_start_time_of_this_process_is_read_and_a_missing_one_is_none() {
        let me = std::process::id() as i32;
        assert!(super::start_time(me).is_some_and(|t| t > 0));
        assert_eq!(super::start_time(i32::MAX), None);
    }
}
