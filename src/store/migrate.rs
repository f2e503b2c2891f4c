//! Schema migrations: the SQL files in `migrations/`, applied in order and tracked in
//! SQLite's `user_version`. Each runs in its own transaction, so a crash never half-applies one.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::{Result, StoreError};

/// Every migration, in order; the schema version is its index + 1.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_approvals.sql"),
    include_str!("../../migrations/0003_todo.sql"),
    include_str!("../../migrations/0004_task_budget.sql"),
    include_str!("../../migrations/0005_session_choice.sql"),
    include_str!("../../migrations/0006_revert_fork_status.sql"),
    include_str!("../../migrations/0007_session_variant.sql"),
    include_str!("../../migrations/0008_remote_session.sql"),
    include_str!("../../migrations/0009_session_roots.sql"),
    include_str!("../../migrations/0010_session_approval.sql"),
    include_str!("../../migrations/0011_session_client_prompt.sql"),
    include_str!("../../migrations/0012_spend.sql"),
    include_str!("../../migrations/0013_session_goal.sql"),
    include_str!("../../migrations/0014_import_origin.sql"),
];

/// The schema version this Tandem writes.
pub(super) const KNOWN: i64 = MIGRATIONS.len() as i64;

/// The store's schema version now.
pub(super) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.prepare_cached("PRAGMA user_version")?
        .query_row([], |row| row.get(0))
}

/// Brings the schema up to date, one migration per IMMEDIATE transaction that re-reads the
/// version inside it: two processes opening a new store at once apply each migration once
/// (the second waits for the first's lock, then finds it done).
pub(super) fn run(conn: &mut Connection, path: &Path) -> Result<()> {
    let known = KNOWN;
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let current = version(&tx)?;
        if current > known {
            return Err(StoreError::TooNew {
                path: path.to_owned(),
                found: current,
                known,
            });
        }
        if current == known {
            tx.commit()?;
            return Ok(());
        }
        tx.execute_batch(MIGRATIONS[current as usize])?;
        tx.pragma_update(None, "user_version", current + 1)?;
        tx.commit()?;
    }
}
