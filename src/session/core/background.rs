//! A session's subagents in the background (`task` with `run_in_background`): each child that
//! runs while its caller goes on, how it ended, and whether the caller's model was told.
//! Stopping them is the session's to do when it closes; running them is delegation's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::id::SessionId;

/// How a background child ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ChildEnd {
    /// It finished its turn: its final message (with a note of jobs ended with it).
    Answered(String),
    /// It was stopped before it finished (`task_cancel`, `/jobs kill`, its session closing).
    Cancelled,
    /// It failed: why.
    Failed(String),
}

/// One subagent working in the background.
pub struct BackgroundChild {
    /// Its child session, which is also the id the model and `/jobs` name it by.
    pub session: SessionId,
    pub agent: String,
    pub description: String,
    started: Instant,
    cancel: CancellationToken,
    end: watch::Sender<Option<ChildEnd>>,
    /// The caller's model was told it ended.
    told: AtomicBool,
}

impl BackgroundChild {
    /// How it ended, once it has.
    pub fn end(&self) -> Option<ChildEnd> {
        self.end.borrow().clone()
    }

    /// Stops it (its turn is cancelled; it then ends as `Cancelled`).
    pub fn stop(&self) {
        self.cancel.cancel();
    }

    /// The token its run watches.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Records how it ended (once; later calls change nothing).
    pub fn finish(&self, end: ChildEnd) {
        self.end.send_if_modified(|slot| {
            let first = slot.is_none();
            if first {
                *slot = Some(end);
            }
            first
        });
    }

    /// Waits at most `limit` for it to end; whether it has.
    pub async fn wait(&self, limit: Duration) -> bool {
        let mut ended = self.end.subscribe();
        tokio::time::timeout(limit, ended.wait_for(Option::is_some))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// The caller's model has been told how it ended (or that it was stopped).
    pub fn mark_told(&self) {
        self.told.store(true, Ordering::Release);
    }

    /// How long it has run, in whole seconds.
    pub fn age_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// "running 12s" or how it ended, for `/jobs`.
    fn state_words(&self) -> String {
        match self.end() {
            None => format!("running {}s", self.age_secs()),
            Some(ChildEnd::Answered(_)) => "finished".into(),
            Some(ChildEnd::Cancelled) => "cancelled".into(),
            Some(ChildEnd::Failed(_)) => "failed".into(),
        }
    }

    /// `@agent “description”`.
    pub fn label(&self) -> String {
        format!("@{} \u{201c}{}\u{201d}", self.agent, self.description)
    }
}

/// Every background child of one session.
#[derive(Default)]
pub struct BackgroundChildren {
    children: Mutex<Vec<Arc<BackgroundChild>>>,
}

impl BackgroundChildren {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<BackgroundChild>>> {
        self.children.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a child now starting in the background.
    pub fn add(&self, session: SessionId, agent: &str, description: &str) -> Arc<BackgroundChild> {
        let child = Arc::new(BackgroundChild {
            session,
            agent: agent.to_owned(),
            description: description.to_owned(),
            started: Instant::now(),
            cancel: CancellationToken::new(),
            end: watch::channel(None).0,
            told: AtomicBool::new(false),
        });
        self.lock().push(child.clone());
        child
    }

    /// The child `id` names (its session id, spaces aside).
    pub fn get(&self, id: &str) -> Option<Arc<BackgroundChild>> {
        let id = id.trim();
        self.lock()
            .iter()
            .find(|c| c.session.as_str() == id)
            .cloned()
    }

    /// The children still running.
    pub fn running(&self) -> Vec<Arc<BackgroundChild>> {
        self.lock()
            .iter()
            .filter(|c| c.end().is_none())
            .cloned()
            .collect()
    }

    /// Children that ended since the model was last told, marked told.
    pub fn newly_ended(&self) -> Vec<(Arc<BackgroundChild>, ChildEnd)> {
        self.lock()
            .iter()
            .filter_map(|child| {
                let end = child.end()?;
                (!child.told.swap(true, Ordering::AcqRel)).then(|| (child.clone(), end))
            })
            .collect()
    }

    /// Waits at most `limit` for the children told to stop to have ended.
    pub async fn stopped_ended(&self, limit: Duration) {
        let stopped: Vec<_> = (self.running().into_iter())
            .filter(|c| c.cancel.is_cancelled())
            .collect();
        Stopping(stopped).ended(limit).await;
    }

    /// Stops every child still running (the session closes, or Tandem exits); those stopped,
    /// to wait for with [`Stopping::ended`].
    pub fn stop_all(&self) -> Stopping {
        let running = self.running();
        for child in &running {
            child.stop();
        }
        Stopping(running)
    }

    /// `/jobs`: one line per child, running ones first; None when there are none.
    pub fn listing(&self) -> Option<Vec<String>> {
        let children = self.lock().clone();
        if children.is_empty() {
            return None;
        }
        let (running, ended): (Vec<_>, Vec<_>) = children.iter().partition(|c| c.end().is_none());
        Some(
            running
                .iter()
                .chain(&ended)
                .map(|c| format!("{}  {}  {}", c.session, c.state_words(), c.label()))
                .collect(),
        )
    }
}

/// Children told to stop, not yet ended.
#[derive(Default)]
pub struct Stopping(Vec<Arc<BackgroundChild>>);

impl Stopping {
    /// Waits at most `limit` for every one of them to end.
    pub async fn ended(self, limit: Duration) {
        futures::future::join_all(self.0.iter().map(|c| c.wait(limit))).await;
    }
}

impl Drop for BackgroundChildren {
    fn drop(&mut self) {
        for child in self.lock().iter() {
            child.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_child_ends_once_and_is_told_once() {
        let table = BackgroundChildren::default();
        let child = table.add(SessionId::from("ses_1"), "general", "Look");
        assert_eq!(table.running().len(), 1);
        assert!(!child.wait(Duration::from_millis(1)).await);
        child.finish(ChildEnd::Answered("found".into()));
        child.finish(ChildEnd::Cancelled);
        assert!(child.wait(Duration::from_millis(1)).await);
        assert_eq!(child.end(), Some(ChildEnd::Answered("found".into())));
        assert_eq!(table.newly_ended().len(), 1);
        assert!(table.newly_ended().is_empty());
        assert!(table.running().is_empty());
        assert_eq!(
            table.listing().unwrap(),
            ["ses_1  finished  @general \u{201c}Look\u{201d}"]
        );
    }
}
