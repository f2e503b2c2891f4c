//! The SQLite store: one WAL-mode database holding sessions, messages and parts, migrated
//! from `migrations/`. It owns persistence only; it never publishes events or calls models.

mod approvals;
mod behind;
mod budget;
mod choice;
mod goal;
mod imports;
mod legacy;
mod messages;
mod migrate;
mod remote;
mod retention;
mod revert;
mod sessions;
mod spend;
mod todos;
mod watch;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use rusqlite::Connection;

pub use imports::ImportOrigin;
pub use sessions::{SessionPage, SessionRow};
pub use spend::Spent;
pub use watch::Changes;

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the session database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot create the data directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("session database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("session database error: {0}")]
    WriteBehind(#[from] behind::WriteFailure),
    #[error("cannot start the session database writer: {0}")]
    Writer(#[from] std::io::Error),
    #[error("corrupt record in the session database: {0}")]
    Corrupt(#[from] serde_json::Error),
    #[error(
        "the session database {path} has schema version {found}, newer than this Tandem ({known}); upgrade Tandem"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// A handle on the database. Messages and parts are written behind (see `behind`); every
/// other call holds the connection briefly. Writes are single statements or transactions, so
/// a killed process leaves a consistent database.
pub struct Store {
    shared: Arc<behind::Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) `tandem.db` in `dir` and brings its schema up to date.
    pub fn open_in(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
            path: dir.to_owned(),
            source,
        })?;
        Self::open(&dir.join("tandem.db"))
    }

    /// Opens the database file at `path` and migrates it.
    pub fn open(path: &Path) -> Result<Self> {
        let open_err = |source| StoreError::Open {
            path: path.to_owned(),
            source,
        };
        let mut conn = Connection::open(path).map_err(open_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(open_err)?;
        // WAL lets several editor windows share the file; NORMAL sync keeps every committed
        // transaction across a process crash (only an OS crash may lose the last ones).
        // Switching a new file to WAL takes a lock SQLite's busy timeout does not wait for:
        // another process creating the store at the same moment makes it fail at once.
        retry_while_busy(|| conn.pragma_update(None, "journal_mode", "WAL")).map_err(open_err)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(open_err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open_err)?;
        migrate::run(&mut conn, path)?;
        let shared = behind::Shared::new(conn);
        let writer = shared.start_writer()?;
        Ok(Self {
            shared,
            writer: Mutex::new(Some(writer)),
            path: path.to_owned(),
        })
    }

    /// Waits until every message and part written so far is in the database file.
    pub fn flush(&self) -> Result<()> {
        Ok(self.shared.flush()?)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The connection, with every queued write applied first.
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.shared.conn()
    }

    fn write_behind(&self, write: behind::Write) -> Result<()> {
        Ok(self.shared.push(write)?)
    }
}

/// Runs `op` again while another connection holds the lock it needs, for up to 5 s.
fn retry_while_busy<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match op() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        self.shared.close();
        let writer = self
            .writer
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        if let Err(error) = self.shared.flush() {
            tracing::error!(%error, "the last messages could not be stored");
        }
    }
}
