//! The process's language servers: one per (root, server), shared by every session, started
//! lazily the first time a file of theirs is read or changed, restarted once after a crash
//! and then turned off with a notice for the person, and all shut down when Tandem exits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::catalog::ServerSpec;
use super::server::{Server, with_tail};

/// How many crashes a server is restarted after.
const RESTARTS: u32 = 1;

#[derive(Clone)]
enum State {
    Idle,
    Starting,
    Ready(Arc<Server>),
    Off(String),
}

/// One (root, server): its state, and what the person has yet to be told.
struct Slot {
    spec: ServerSpec,
    program: PathBuf,
    /// The sandbox a server from the project's own folders starts in.
    sandbox: Option<Arc<crate::sandbox::Policy>>,
    root: PathBuf,
    /// The other workspace roots of the sessions it serves: its workspace folders beside its
    /// root.
    others: Mutex<Vec<PathBuf>>,
    state: watch::Sender<State>,
    crashes: AtomicU32,
    notice: Mutex<Option<String>>,
    closing: Arc<AtomicBool>,
}

/// What `/diagnostics` and `tandem doctor` show of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    pub root: PathBuf,
    /// "running (pid 123)", "starting", "off: why".
    pub state: String,
}

/// Every language server of this process.
#[derive(Default)]
pub struct Lsp {
    slots: Mutex<HashMap<(PathBuf, String), Arc<Slot>>>,
    closing: Arc<AtomicBool>,
}

impl Lsp {
    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<(PathBuf, String), Arc<Slot>>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `spec`'s server for `root` (its program at `program`, started in `sandbox` if any),
    /// starting it when it is not running, with the workspace's `others` roots among its
    /// folders; waits for it until `deadline`. An error says why there is none.
    pub(super) async fn server(
        &self,
        (spec, program, sandbox): (&ServerSpec, &Path, Option<&Arc<crate::sandbox::Policy>>),
        (root, others): (&Path, &[PathBuf]),
        deadline: Instant,
    ) -> Result<Arc<Server>, Unavailable> {
        let slot = self
            .slots()
            .entry((root.to_owned(), spec.name.clone()))
            .or_insert_with(|| {
                Arc::new(Slot {
                    spec: spec.clone(),
                    program: program.to_owned(),
                    sandbox: sandbox.cloned(),
                    root: root.to_owned(),
                    others: Mutex::default(),
                    state: watch::channel(State::Idle).0,
                    crashes: AtomicU32::new(0),
                    notice: Mutex::new(None),
                    closing: self.closing.clone(),
                })
            })
            .clone();
        {
            let mut known = slot.others.lock().unwrap_or_else(|p| p.into_inner());
            for other in others {
                if !known.contains(other) {
                    known.push(other.clone());
                }
            }
        }
        let server = slot.ready(deadline).await?;
        server.add_folders(others);
        Ok(server)
    }

    /// The notice for the person about servers turned off since it was last asked, if any.
    pub(super) fn take_notice(&self, root: &Path, name: &str) -> Option<String> {
        let slot = self
            .slots()
            .get(&(root.to_owned(), name.to_owned()))
            .cloned()?;
        slot.notice.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// Every server started so far and its state, by root then name.
    pub fn status(&self) -> Vec<ServerStatus> {
        let mut status: Vec<ServerStatus> = self
            .slots()
            .values()
            .map(|slot| ServerStatus {
                name: slot.spec.name.clone(),
                root: slot.root.clone(),
                state: match &*slot.state.borrow() {
                    State::Idle if slot.crashes.load(Ordering::Acquire) > 0 => "restarting".into(),
                    State::Idle | State::Starting => "starting".into(),
                    State::Ready(server) if server.is_alive() => {
                        format!("running (pid {})", server.pid)
                    }
                    State::Ready(_) => "exited".into(),
                    State::Off(why) => format!("off: {why}"),
                },
            })
            .collect();
        status.sort_by(|a, b| (&a.root, &a.name).cmp(&(&b.root, &b.name)));
        status
    }

    /// Shuts every server down (Tandem is exiting): `shutdown` and `exit`, all at once,
    /// waiting at most `limit`, then their process groups are killed.
    pub async fn shutdown(&self, limit: Duration) {
        self.closing.store(true, Ordering::Release);
        let running: Vec<Arc<Server>> = self
            .slots()
            .values()
            .filter_map(|slot| match &*slot.state.borrow() {
                State::Ready(server) => Some(server.clone()),
                _ => None,
            })
            .collect();
        futures::future::join_all(running.iter().map(|s| s.stop(limit))).await;
    }
}

/// Why a file has no server to answer for it now.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Unavailable {
    /// Still starting (or indexing before its first answer) at the deadline.
    Starting,
    /// Turned off after failing; the reason.
    Off(String),
}

impl Slot {
    async fn ready(self: &Arc<Self>, deadline: Instant) -> Result<Arc<Server>, Unavailable> {
        self.ensure_started();
        let mut state = self.state.subscribe();
        loop {
            match &*state.borrow_and_update() {
                State::Ready(server) if server.is_alive() => return Ok(server.clone()),
                State::Off(why) => return Err(Unavailable::Off(why.clone())),
                _ => {}
            }
            match tokio::time::timeout_at(deadline.into(), state.changed()).await {
                Ok(Ok(())) => {}
                _ => return Err(Unavailable::Starting),
            }
        }
    }

    fn ensure_started(self: &Arc<Self>) {
        let start = self.state.send_if_modified(|state| match state {
            State::Idle => {
                *state = State::Starting;
                true
            }
            _ => false,
        });
        if start && !self.closing.load(Ordering::Acquire) {
            tokio::spawn(self.clone().run());
        }
    }

    /// Starts the server and watches it until it ends.
    async fn run(self: Arc<Self>) {
        tracing::info!(server = %self.spec.name, root = %self.root.display(), "starting a language server");
        let sandbox = self.sandbox.as_deref();
        let others = self
            .others
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let place = (self.root.as_path(), others.as_slice());
        match Server::start(&self.spec, &self.program, place, sandbox).await {
            Ok(server) => {
                self.state.send_replace(State::Ready(server.clone()));
                server.exited().await;
                if self.closing.load(Ordering::Acquire) {
                    return;
                }
                // Its last words arrive just after its output closes.
                tokio::time::sleep(Duration::from_millis(50)).await;
                server.kill();
                self.failed(with_tail("it exited".into(), &server.stderr));
            }
            Err(why) => self.failed(why),
        }
    }

    fn failed(self: &Arc<Self>, why: String) {
        let crashes = self.crashes.fetch_add(1, Ordering::AcqRel) + 1;
        tracing::warn!(server = %self.spec.name, crashes, "a language server failed: {why}");
        if crashes <= RESTARTS {
            self.state.send_replace(State::Idle);
            self.ensure_started();
            return;
        }
        let notice = format!(
            "The language server {} failed {} and is off until Tandem restarts: {why}",
            self.spec.name,
            super::diagnostics::count(crashes as usize, "time")
        );
        *self.notice.lock().unwrap_or_else(|p| p.into_inner()) = Some(notice);
        self.state.send_replace(State::Off(why));
    }
}
