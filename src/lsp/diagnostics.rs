//! A server's published diagnostics, per file, and the wait after a change: the server's
//! answer for the text sent (final when it names that version; else settled briefly for a
//! further stage), bounded by a deadline; and the block of errors the model reads.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use tokio::sync::watch;

use super::position::{from_utf16, line_of};

/// The most errors shown for one file.
const SHOWN_PER_FILE: usize = 20;

/// One diagnostic as the server sent it (0-based, UTF-16 columns).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(super) struct Diagnostic {
    pub range: Range,
    /// 1 error, 2 warning, 3 information, 4 hint; none is taken as an error.
    #[serde(default)]
    pub severity: Option<u8>,
    pub message: String,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub(super) struct Range {
    pub start: Position,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub(super) struct Position {
    pub line: u32,
    pub character: u32,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.severity.unwrap_or(1) == 1
    }
}

#[derive(Deserialize)]
struct Publication {
    uri: String,
    #[serde(default)]
    version: Option<i64>,
    #[serde(default)]
    diagnostics: Vec<Diagnostic>,
}

/// The last publication for one file.
#[derive(Debug, Clone, Default)]
struct Published {
    version: Option<i64>,
    items: Vec<Diagnostic>,
    /// Which publication of the server this was (counting from 1).
    seq: u64,
}

/// A server's answer for a changed file.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Answered {
    pub items: Vec<Diagnostic>,
    /// Taken after the settle time (the server named no version): publications for other
    /// files have had that time to come too.
    pub settled: bool,
}

/// Everything one server has published, and a signal on each new publication.
pub(super) struct DiagnosticStore {
    files: Mutex<HashMap<String, Published>>,
    tick: watch::Sender<u64>,
}

impl Default for DiagnosticStore {
    fn default() -> Self {
        Self {
            files: Mutex::default(),
            tick: watch::channel(0).0,
        }
    }
}

impl DiagnosticStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Published>> {
        self.files.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes in a `textDocument/publishDiagnostics` notification.
    pub fn publish(&self, params: Value) {
        let Ok(publication) = serde_json::from_value::<Publication>(params) else {
            return;
        };
        let mut files = self.lock();
        let mut seq = 0;
        self.tick.send_modify(|n| {
            *n += 1;
            seq = *n;
        });
        files.insert(
            publication.uri,
            Published {
                version: publication.version,
                items: publication.diagnostics,
                seq,
            },
        );
    }

    /// How many publications came so far: a change sent now is answered by a later one.
    pub fn mark(&self) -> u64 {
        *self.tick.borrow()
    }

    /// The number of errors in each file that has any.
    pub fn error_counts(&self) -> HashMap<String, usize> {
        self.lock()
            .iter()
            .map(|(uri, p)| (uri.clone(), p.items.iter().filter(|d| d.is_error()).count()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// The diagnostics answering `version` of `uri`, sent after publication `since`: at once
    /// when the server names that version; otherwise the last that came within `settle` of
    /// the one before. None when nothing came by `deadline`.
    pub async fn answer(
        &self,
        uri: &str,
        version: i64,
        since: u64,
        settle: Duration,
        deadline: Instant,
    ) -> Option<Answered> {
        let mut ticks = self.tick.subscribe();
        let mut settled_at: Option<(u64, Instant)> = None;
        loop {
            let current = self.lock().get(uri).cloned().filter(|p| p.seq > since);
            if let Some(published) = &current {
                match published.version {
                    Some(v) if v == version => {
                        return Some(Answered {
                            items: published.items.clone(),
                            settled: false,
                        });
                    }
                    // An answer for an older text: the one for ours is still to come.
                    Some(v) if v < version => {}
                    _ => {
                        if settled_at.is_none_or(|(seq, _)| seq != published.seq) {
                            settled_at = Some((published.seq, Instant::now() + settle));
                        }
                    }
                }
            }
            let wake = settled_at.map_or(deadline, |(_, at)| at.min(deadline));
            let waited = tokio::time::timeout_at(wake.into(), ticks.changed()).await;
            if waited.is_err() || matches!(waited, Ok(Err(_))) {
                return settled_at.and(current).map(|p| Answered {
                    items: p.items,
                    settled: true,
                });
            }
        }
    }
}

impl DiagnosticStore {
    /// Returns once no publication has come for `gap`, or after `most`: a server answering a
    /// change publishes the changed file first and the files it broke just after.
    pub async fn quiet(&self, gap: Duration, most: Duration) {
        let mut ticks = self.tick.subscribe();
        let until = Instant::now() + most;
        loop {
            let wake = (Instant::now() + gap).min(until);
            match tokio::time::timeout_at(wake.into(), ticks.changed()).await {
                Ok(Ok(())) if Instant::now() < until => {}
                _ => return,
            }
        }
    }
}

/// The block the model reads for `items` of the file `relative` (whose text is `text`); None
/// when there is no error.
pub(super) fn block(
    server: &str,
    relative: &str,
    text: &str,
    items: &[Diagnostic],
) -> Option<String> {
    let errors: Vec<&Diagnostic> = items.iter().filter(|d| d.is_error()).collect();
    if errors.is_empty() {
        return None;
    }
    let mut lines = Vec::with_capacity(errors.len().min(SHOWN_PER_FILE) + 4);
    lines.push(format!(
        "The language server ({server}) reports {} in {relative}; fix {}:",
        count(errors.len(), "error"),
        if errors.len() == 1 { "it" } else { "them" }
    ));
    lines.push(format!("<diagnostics file=\"{relative}\">"));
    for d in errors.iter().take(SHOWN_PER_FILE) {
        let start = d.range.start;
        let column = from_utf16(line_of(text, start.line), start.character);
        let source = d
            .source
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        let message = crate::utf8::one_line(&d.message, 400).unwrap_or_default();
        lines.push(format!("{}:{column} {message}{source}", start.line + 1));
    }
    if errors.len() > SHOWN_PER_FILE {
        lines.push(format!("... and {} more", errors.len() - SHOWN_PER_FILE));
    }
    lines.push("</diagnostics>".into());
    Some(lines.join("\n"))
}

/// "1 error", "3 errors".
pub(super) fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn publish(store: &DiagnosticStore, version: Option<i64>, message: &str) {
        store.publish(
            json!({"uri": "file:///a.py", "version": version, "diagnostics": [
            {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}},
             "severity": 1, "message": message, "source": "pyflakes"},
            {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}},
             "severity": 2, "message": "a warning"}]}),
        );
    }

    #[tokio::test]
    async fn an_answer_naming_the_version_is_final_and_an_older_one_is_not() {
        let store = std::sync::Arc::new(DiagnosticStore::default());
        let since = store.mark();
        publish(&store, Some(1), "stale");
        let waiting = {
            let store = store.clone();
            tokio::spawn(async move {
                let deadline = Instant::now() + Duration::from_secs(5);
                store
                    .answer("file:///a.py", 2, since, Duration::from_secs(60), deadline)
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        publish(&store, Some(2), "fresh");
        let answered = waiting.await.unwrap().unwrap();
        assert_eq!(answered.items[0].message, "fresh");
        assert!(!answered.settled);
    }

    #[tokio::test]
    async fn an_answer_without_a_version_settles_and_nothing_ends_at_the_deadline() {
        let store = DiagnosticStore::default();
        let since = store.mark();
        let deadline = Instant::now() + Duration::from_millis(50);
        assert_eq!(
            store
                .answer("file:///a.py", 1, since, Duration::ZERO, deadline)
                .await,
            None
        );
        publish(&store, None, "first");
        let deadline = Instant::now() + Duration::from_secs(5);
        let answered = store
            .answer(
                "file:///a.py",
                1,
                since,
                Duration::from_millis(10),
                deadline,
            )
            .await
            .unwrap();
        assert_eq!(answered.items.len(), 2);
        assert!(answered.settled);
    }

    #[test]
    fn the_block_shows_errors_only_with_characters_counted() {
        let store = DiagnosticStore::default();
        publish(&store, None, "undefined name 'foo'");
        let items = store.lock().get("file:///a.py").unwrap().items.clone();
        assert_eq!(
            block("pylsp", "a.py", "é = foo\n", &items).unwrap(),
            "The language server (pylsp) reports 1 error in a.py; fix it:\n<diagnostics file=\"a.py\">\n1:5 undefined name 'foo' [pyflakes]\n</diagnostics>"
        );
        assert_eq!(store.error_counts().len(), 1);
    }
}
