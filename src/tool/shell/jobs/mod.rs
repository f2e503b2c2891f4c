//! Commands in the background (`bash` with `run_in_background`): each is a job of its session,
//! with the output it printed since last read, its end, and what the model was told of it.
//! A session's jobs end with it: closing it, Tandem's exit, and the watchdog after a SIGKILL.

pub mod start;
pub(in crate::tool) mod tools;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::future::BoxFuture;

use crate::process::groups::GroupGuard;
use crate::tool::ToolError;

/// How many jobs a session runs at once unless `background_jobs` says otherwise.
pub const DEFAULT_LIMIT: usize = 8;
/// Unread output kept per job; older unread output is dropped (and counted) beyond it.
const MAX_UNREAD: usize = 4 * 1024 * 1024;

/// One session's background jobs.
pub struct JobTable {
    jobs: Mutex<Vec<Arc<Job>>>,
    next: AtomicU32,
    limit: usize,
}

impl Default for JobTable {
    fn default() -> Self {
        Self::new(DEFAULT_LIMIT)
    }
}

impl JobTable {
    pub fn new(limit: usize) -> Self {
        Self {
            jobs: Mutex::default(),
            next: AtomicU32::new(1),
            limit: limit.max(1),
        }
    }

    fn jobs(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next job's id, or the error the model reads when the session runs its limit.
    pub(in crate::tool) fn admit(&self) -> Result<String, ToolError> {
        let running = self.running().len();
        if running >= self.limit {
            return Err(ToolError::failed(format!(
                "This session already runs {running} background jobs, its limit. End one with \
                 bash_kill (or let one finish) before starting another; /jobs lists them."
            )));
        }
        Ok(format!("bg{}", self.next.fetch_add(1, Ordering::Relaxed)))
    }

    pub(in crate::tool) fn add(&self, job: Arc<Job>) {
        self.jobs().push(job);
    }

    /// The job `id` (its id as the model wrote it, case and spaces aside).
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        let id = id.trim().to_ascii_lowercase();
        self.jobs().iter().find(|j| j.id == id).cloned()
    }

    /// Every job, oldest first.
    pub fn all(&self) -> Vec<Arc<Job>> {
        self.jobs().clone()
    }

    /// The jobs still running.
    pub fn running(&self) -> Vec<Arc<Job>> {
        self.jobs()
            .iter()
            .filter(|j| j.end().is_none())
            .cloned()
            .collect()
    }

    /// Jobs that ended since the model was last told, marked told: for a reminder.
    pub fn newly_ended(&self) -> Vec<(Arc<Job>, JobEnd)> {
        self.jobs()
            .iter()
            .filter_map(|job| {
                let end = job.end()?;
                (!job.told.swap(true, Ordering::AcqRel)).then(|| (job.clone(), end))
            })
            .collect()
    }

    /// Ends every job still running and lets go of the editor's terminals (the session
    /// closes, or Tandem exits).
    pub fn end_all(&self) {
        for job in self.all() {
            job.close();
        }
    }

    /// `/jobs`: one line per job, running ones first.
    pub fn listing(&self) -> String {
        let jobs = self.all();
        if jobs.is_empty() {
            return "No background jobs in this session.".into();
        }
        let (running, ended): (Vec<_>, Vec<_>) = jobs.iter().partition(|j| j.end().is_none());
        let mut lines = Vec::new();
        for job in running.iter().chain(&ended) {
            lines.push(format!(
                "{}  {}  `{}`",
                job.id,
                job.state_words(),
                job.command
            ));
        }
        lines.push("/jobs kill ID ends one.".into());
        lines.join("\n")
    }
}

impl Drop for JobTable {
    fn drop(&mut self) {
        self.end_all();
    }
}

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobEnd {
    Exited(i32),
    /// Killed by a signal (by `bash_kill`, `/jobs kill`, or from outside).
    Killed,
}

impl std::fmt::Display for JobEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobEnd::Exited(code) => write!(f, "exited with code {code}"),
            JobEnd::Killed => write!(f, "was killed"),
        }
    }
}

/// Where a job runs, and so how it is ended.
pub(in crate::tool) enum Runner {
    /// A process group of Tandem's own.
    Local(Mutex<GroupGuard>),
    /// The editor's terminal, which shows its output live.
    Terminal(Arc<dyn EditorTerminal>),
}

/// The editor's terminal a job runs in, as the job uses it (`start` implements it over the
/// client port, so the table needs no port of its own).
pub(in crate::tool) trait EditorTerminal: Send + Sync {
    /// The terminal's id in the editor.
    fn id(&self) -> &str;
    /// Kills the command and releases the terminal.
    fn kill(&self) -> BoxFuture<'static, ()>;
    /// Releases the terminal of an ended command.
    fn release(&self) -> BoxFuture<'static, ()>;
    /// Everything it printed so far, and its end once it has ended.
    fn output(&self) -> BoxFuture<'_, Result<(String, Option<JobEnd>), ToolError>>;
}

/// One background command.
pub struct Job {
    pub id: String,
    pub command: String,
    started: Instant,
    runner: Runner,
    output: Mutex<Unread>,
    end: Mutex<Option<JobEnd>>,
    /// Wakes whoever waits for output or the end.
    changed: tokio::sync::Notify,
    /// The model was told it ended.
    told: AtomicBool,
}

/// Output printed and not yet read.
#[derive(Default)]
struct Unread {
    text: String,
    /// Bytes dropped unread because the job printed more than `MAX_UNREAD` between reads.
    dropped: usize,
    /// For a terminal job: how much of the terminal's output has been read.
    consumed: usize,
}

impl Job {
    pub(in crate::tool) fn new(id: String, command: String, runner: Runner) -> Self {
        Self {
            id,
            command,
            started: Instant::now(),
            runner,
            output: Mutex::default(),
            end: Mutex::default(),
            changed: tokio::sync::Notify::new(),
            told: AtomicBool::new(false),
        }
    }

    pub fn end(&self) -> Option<JobEnd> {
        *self.end.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether its output is in the editor's terminal.
    pub fn terminal_id(&self) -> Option<&str> {
        match &self.runner {
            Runner::Terminal(terminal) => Some(terminal.id()),
            Runner::Local(_) => None,
        }
    }

    fn state_words(&self) -> String {
        match self.end() {
            None => format!("running for {}s", self.started.elapsed().as_secs()),
            Some(end) => end.to_string(),
        }
    }

    /// New output from a local job.
    pub(in crate::tool) fn push(&self, text: &str) {
        let mut unread = self.output.lock().unwrap_or_else(|p| p.into_inner());
        unread.text.push_str(text);
        if unread.text.len() > MAX_UNREAD {
            let mut cut = unread.text.len() - MAX_UNREAD;
            while !unread.text.is_char_boundary(cut) {
                cut += 1;
            }
            unread.text.drain(..cut);
            unread.dropped += cut;
        }
        drop(unread);
        self.changed.notify_waiters();
    }

    /// The job ended; a local job's group is killed with whatever it left behind.
    pub(in crate::tool) fn finish(&self, end: JobEnd) {
        {
            let mut slot = self.end.lock().unwrap_or_else(|p| p.into_inner());
            if slot.is_none() {
                *slot = Some(end);
            }
        }
        if let Runner::Local(group) = &self.runner {
            group.lock().unwrap_or_else(|p| p.into_inner()).kill();
        }
        self.changed.notify_waiters();
    }

    /// Ends the job: SIGKILL to its process group, or the editor's terminal killed and
    /// released. Returns at once; `finish` records the end when the runner sees it.
    pub fn kill(&self) {
        match &self.runner {
            Runner::Local(group) => {
                group.lock().unwrap_or_else(|p| p.into_inner()).kill();
            }
            Runner::Terminal(terminal) => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(terminal.kill());
                }
                self.finish(JobEnd::Killed);
            }
        }
    }

    /// Kills a running job; releases the editor's terminal of an ended one.
    fn close(&self) {
        match (&self.runner, self.end()) {
            (_, None) => self.kill(),
            (Runner::Terminal(terminal), Some(_)) => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(terminal.release());
                }
            }
            (Runner::Local(_), Some(_)) => {}
        }
    }

    /// Waits until the job ends or `timeout` passes; whether it ended.
    pub async fn wait(&self, timeout: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.changed.notified();
            if self.end().is_some() {
                return true;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return self.end().is_some();
            }
        }
    }

    /// Waits for the first output (or the end), at most `timeout`.
    pub(in crate::tool) async fn first_output(&self, timeout: std::time::Duration) {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let changed = self.changed.notified();
            let has_output = !self
                .output
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .text
                .is_empty();
            if has_output || self.end().is_some() || self.terminal_id().is_some() {
                return;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return;
            }
        }
    }

    /// What it printed since the last read (a terminal job's from the editor), and how many
    /// bytes were dropped unread.
    pub async fn read_new(&self) -> Result<(String, usize), ToolError> {
        if let Runner::Terminal(terminal) = &self.runner {
            let (all, end) = terminal.output().await?;
            let text = all.replace("\r\n", "\n");
            let mut unread = self.output.lock().unwrap_or_else(|p| p.into_inner());
            let start = if unread.consumed <= text.len() && text.is_char_boundary(unread.consumed) {
                unread.consumed
            } else {
                0
            };
            unread.consumed = text.len();
            if let Some(end) = end
                && self.end().is_none()
            {
                drop(unread);
                self.finish(end);
            }
            return Ok((text[start..].to_owned(), 0));
        }
        let mut unread = self.output.lock().unwrap_or_else(|p| p.into_inner());
        let text = std::mem::take(&mut unread.text);
        let dropped = std::mem::take(&mut unread.dropped);
        Ok((text, dropped))
    }

    /// The model has been told how it ended (a report that says so), so no reminder repeats it.
    pub(in crate::tool) fn mark_told_if_ended(&self) {
        if self.end().is_some() {
            self.told.store(true, Ordering::Release);
        }
    }

    /// Seconds since it started.
    pub fn age_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_job_that_floods_keeps_only_its_latest_unread_output_and_counts_the_rest() {
        let job = Job::new(
            "bg1".into(),
            "yes".into(),
            Runner::Local(Mutex::new(GroupGuard::new(None))),
        );
        let line = "y\n".repeat(1024);
        for _ in 0..(MAX_UNREAD / line.len() + 100) {
            job.push(&line);
        }
        job.push("é-last\n");
        let (text, dropped) = job.read_new().await.unwrap();
        assert!(text.len() <= MAX_UNREAD, "{}", text.len());
        assert!(text.ends_with("é-last\n"));
        assert!(dropped >= 100 * line.len(), "{dropped}");
        assert_eq!(
            job.read_new().await.unwrap(),
            (String::new(), 0),
            "read once"
        );
    }

    #[test]
    fn ids_are_matched_loosely_and_the_limit_is_kept() {
        let table = JobTable::new(1);
        let id = table.admit().unwrap();
        assert_eq!(id, "bg1");
        table.add(Arc::new(Job::new(
            id,
            "sleep".into(),
            Runner::Local(Mutex::new(GroupGuard::new(None))),
        )));
        assert!(table.get(" BG1 ").is_some());
        assert!(table.admit().is_err(), "one running job is the limit");
    }
}
