//! Write-behind for the hot rows (messages and parts): callers queue a write and go on; a
//! writer thread commits whatever has queued up in one transaction, in queue order.
//!
//! Every other store call drains the queue first (under the connection lock), so reads see
//! every earlier write and all writes reach the file in the order they were made.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use rusqlite::{Connection, params};

/// One queued row write; the row data is already serialised by the caller.
pub(super) enum Write {
    Message {
        id: String,
        session_id: String,
        role: &'static str,
        data: String,
        /// The session's `updated_at` is raised to at least this.
        at: i64,
    },
    Part {
        id: String,
        message_id: String,
        session_id: String,
        data: String,
    },
}

/// A queued write that could not be committed; reported by the next store call.
#[derive(Debug, thiserror::Error)]
#[error("cannot store {row} {id}: {source}")]
pub struct WriteFailure {
    /// `message` or `part`.
    row: &'static str,
    id: String,
    source: WriteError,
}

/// Why a write failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// A newer Tandem migrated the store while this one ran: writing rows shaped for the old
    /// schema could corrupt it, so this process stops writing.
    #[error(
        "a newer Tandem upgraded the session database to schema version {found} while this one \
         (version {known}) was running; this process no longer writes to it. Restart the agent \
         with the newer Tandem"
    )]
    TooNew { found: i64, known: i64 },
}

impl Write {
    fn key(&self) -> (bool, &str) {
        match self {
            Write::Message { id, .. } => (true, id),
            Write::Part { id, .. } => (false, id),
        }
    }

    fn failure(&self, source: impl Into<WriteError>) -> WriteFailure {
        let (is_message, id) = self.key();
        WriteFailure {
            row: if is_message { "message" } else { "part" },
            id: id.to_owned(),
            source: source.into(),
        }
    }

    /// Takes a later write of the same row: its data, and the later of the two times.
    fn absorb(&mut self, later: Write) {
        match (self, later) {
            (
                Write::Message { data, at, .. },
                Write::Message {
                    data: new,
                    at: new_at,
                    ..
                },
            ) => {
                *data = new;
                *at = (*at).max(new_at);
            }
            (Write::Part { data, .. }, Write::Part { data: new, .. }) => *data = new,
            _ => unreachable!("writes are merged by kind and id"),
        }
    }

    /// Writes the row, stamped with change number `seq` (what watchers in other processes
    /// read changes by).
    fn apply(&self, conn: &Connection, seq: i64) -> rusqlite::Result<()> {
        match self {
            Write::Message {
                id,
                session_id,
                role,
                data,
                at,
            } => {
                conn.prepare_cached(
                    "INSERT INTO message (id, session_id, role, data, seq) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(id) DO UPDATE SET data = excluded.data, seq = excluded.seq",
                )?
                .execute(params![id, session_id, role, data, seq])?;
                conn.prepare_cached(
                    "UPDATE session SET updated_at = max(updated_at, ?2) WHERE id = ?1",
                )?
                .execute(params![session_id, at])?;
            }
            Write::Part {
                id,
                message_id,
                session_id,
                data,
            } => {
                conn.prepare_cached(
                    "INSERT INTO part (id, message_id, session_id, data, seq) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(id) DO UPDATE SET data = excluded.data, seq = excluded.seq",
                )?
                .execute(params![id, message_id, session_id, data, seq])?;
            }
        }
        Ok(())
    }
}

#[derive(Default)]
struct Queue {
    writes: Vec<Write>,
    /// The first failure not yet reported to a caller.
    failure: Option<WriteFailure>,
    writer_idle: bool,
    closing: bool,
}

/// The connection and the queue of writes not yet applied to it.
pub(super) struct Shared {
    conn: Mutex<Connection>,
    queue: Mutex<Queue>,
    wake: Condvar,
}

impl Shared {
    pub fn new(conn: Connection) -> Arc<Self> {
        Arc::new(Self {
            conn: Mutex::new(conn),
            queue: Mutex::default(),
            wake: Condvar::new(),
        })
    }

    /// Queues `write` (always); returns an earlier write's failure not reported yet.
    pub fn push(&self, write: Write) -> Result<(), WriteFailure> {
        let mut queue = lock(&self.queue);
        queue.writes.push(write);
        if queue.writer_idle {
            queue.writer_idle = false;
            self.wake.notify_one();
        }
        queue.failure.take().map_or(Ok(()), Err)
    }

    /// The connection, with every queued write applied.
    pub fn conn(&self) -> MutexGuard<'_, Connection> {
        let conn = lock(&self.conn);
        let writes = std::mem::take(&mut lock(&self.queue).writes);
        if !writes.is_empty()
            && let Err(failure) = commit(&conn, &coalesce(writes))
        {
            lock(&self.queue).failure.get_or_insert(failure);
        }
        conn
    }

    /// Applies every queued write; returns a failure not yet reported.
    pub fn flush(&self) -> Result<(), WriteFailure> {
        drop(self.conn());
        match lock(&self.queue).failure.take() {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }

    /// Starts the writer thread; it stops (after a last flush) once `close` is called.
    pub fn start_writer(self: &Arc<Self>) -> std::io::Result<JoinHandle<()>> {
        let shared = self.clone();
        std::thread::Builder::new()
            .name("tandem-store".into())
            .spawn(move || shared.write_until_closed())
    }

    pub fn close(&self) {
        lock(&self.queue).closing = true;
        self.wake.notify_one();
    }

    fn write_until_closed(&self) {
        loop {
            {
                let mut queue = lock(&self.queue);
                while queue.writes.is_empty() && !queue.closing {
                    queue.writer_idle = true;
                    queue = self
                        .wake
                        .wait(queue)
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                if queue.writes.is_empty() {
                    return;
                }
            }
            // Writes that queue up while this commits go into the next batch together.
            drop(self.conn());
        }
    }
}

/// Merges writes of the same row into its first write (every write is an upsert, so the
/// result is the same; the first position keeps a part after its message).
fn coalesce(writes: Vec<Write>) -> Vec<Write> {
    let mut merged: Vec<Write> = Vec::with_capacity(writes.len());
    let mut index: HashMap<(bool, String), usize> = HashMap::with_capacity(writes.len());
    for write in writes {
        let (is_message, id) = write.key();
        match index.entry((is_message, id.to_owned())) {
            Entry::Occupied(at) => merged[*at.get()].absorb(write),
            Entry::Vacant(slot) => {
                slot.insert(merged.len());
                merged.push(write);
            }
        }
    }
    merged
}

/// The next change number, shared by every process writing the database.
pub(super) fn next_change(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value")?
        .query_row([], |row| row.get(0))
}

/// Applies `writes` in one transaction. If the batch fails, each write is tried on its own so
/// one bad row costs only itself; the first failure is returned to be reported.
fn commit(conn: &Connection, writes: &[Write]) -> Result<(), WriteFailure> {
    let batch = (|| {
        let tx = conn.unchecked_transaction()?;
        // Read inside the transaction (one header read): no migration can slip in after it.
        let found = super::migrate::version(&tx)?;
        let known = super::migrate::KNOWN;
        if found > known {
            return Err(WriteError::TooNew { found, known });
        }
        let seq = next_change(&tx)?;
        for write in writes {
            write.apply(&tx, seq)?;
        }
        Ok(tx.commit()?)
    })();
    let error = match batch {
        Ok(()) => return Ok(()),
        Err(WriteError::Sqlite(error)) => error,
        Err(too_new) => {
            tracing::error!(error = %too_new, "the store is newer than this Tandem");
            return Err(writes[0].failure(too_new));
        }
    };
    tracing::warn!(%error, rows = writes.len(), "batched store write failed; writing rows one by one");
    let mut first = None;
    for write in writes {
        if let Err(error) = next_change(conn).and_then(|seq| write.apply(conn, seq)) {
            let failure = write.failure(error);
            tracing::error!(%failure, "a message or part could not be stored");
            first.get_or_insert(failure);
        }
    }
    first.map_or(Ok(()), Err)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::Store;
    use crate::id::{MessageId, PartId, SessionId};
    use crate::message::{MessageInfo, Part, PartBody, Role, SessionInfo};

    fn session(store: &Store) -> SessionId {
        let id = SessionId::new();
        store
            .create_session(&SessionInfo {
                id: id.clone(),
                parent_id: None,
                cwd: PathBuf::from("/p"),
                extra_roots: Vec::new(),
                title: "t".into(),
                created_at: 1,
                updated_at: 1,
            })
            .unwrap();
        id
    }

    fn message(session_id: &SessionId, completed_at: Option<i64>) -> MessageInfo {
        MessageInfo {
            completed_at,
            ..MessageInfo::new(session_id.clone(), Role::Assistant, "build", 2)
        }
    }

    fn text(info: &MessageInfo, id: &PartId, text: &str) -> Part {
        Part {
            id: id.clone(),
            message_id: info.id.clone(),
            session_id: info.session_id.clone(),
            body: PartBody::Text {
                text: text.into(),
                synthetic: false,
            },
        }
    }

    #[test]
    fn reads_see_every_earlier_write_and_repeated_rows_keep_the_last_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let sid = session(&store);
        let mut info = message(&sid, None);
        store.put_message(&info).unwrap();
        let part = PartId::new();
        for version in ["a", "ab", "abc"] {
            store.put_part(&text(&info, &part, version)).unwrap();
        }
        info.completed_at = Some(9);
        store.put_message(&info).unwrap();
        let loaded = store.load_messages(&sid).unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].info.completed_at, Some(9));
        assert_eq!(loaded[0].parts, vec![text(&info, &part, "abc")]);
        assert_eq!(store.get_session(&sid).unwrap().unwrap().updated_at, 9);
    }

    #[test]
    fn coalescing_keeps_the_first_position_with_the_last_data() {
        let write = |id: &str, data: &str| super::Write::Part {
            id: id.into(),
            message_id: "m".into(),
            session_id: "s".into(),
            data: data.into(),
        };
        let merged = super::coalesce(vec![write("p1", "1"), write("p2", "x"), write("p1", "2")]);
        let rows: Vec<(&str, &str)> = merged
            .iter()
            .map(|w| match w {
                super::Write::Part { id, data, .. } => (id.as_str(), data.as_str()),
                super::Write::Message { .. } => unreachable!(),
            })
            .collect();
        assert_eq!(rows, [("p1", "2"), ("p2", "x")]);
    }

    #[test]
    fn dropping_the_store_writes_everything_queued() {
        let dir = tempfile::tempdir().unwrap();
        let (sid, info) = {
            let store = Store::open_in(dir.path()).unwrap();
            let sid = session(&store);
            let info = message(&sid, Some(3));
            store.put_message(&info).unwrap();
            for i in 0..200 {
                store
                    .put_part(&text(&info, &PartId::new(), &i.to_string()))
                    .unwrap();
            }
            (sid, info)
        };
        let store = Store::open_in(dir.path()).unwrap();
        let loaded = store.load_messages(&sid).unwrap();
        assert_eq!(loaded[0].info, info);
        assert_eq!(loaded[0].parts.len(), 200);
    }

    #[test]
    fn a_row_that_cannot_be_written_is_reported_and_costs_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let sid = session(&store);
        let info = message(&sid, None);
        store.put_message(&info).unwrap();
        let good = text(&info, &PartId::new(), "kept");
        // A part of a message that does not exist breaks the foreign key.
        let orphan = Part {
            message_id: MessageId::new(),
            ..text(&info, &PartId::new(), "orphan")
        };
        store.put_part(&orphan).unwrap();
        // The failure is reported by the next call (this one, if the writer was quick).
        let error = match store.put_part(&good) {
            Err(error) => error,
            Ok(()) => store.flush().unwrap_err(),
        }
        .to_string();
        assert!(error.contains("FOREIGN KEY"), "{error}");
        assert_eq!(store.load_messages(&sid).unwrap()[0].parts, vec![good]);
        store.flush().unwrap();
    }
}
