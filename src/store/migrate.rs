//! Schema migrations: the SQL files in `migrations/`, applied in order and tracked in
//! SQLite's `user_version`. Each runs in its own transaction, so a crash never half-applies one.

use std::path::Path;

use rusqlite::Connection;

use super::{Result, StoreError};

/// Every migration, in order; the schema version is its index + 1.
const MIGRATIONS: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_approvals.sql"),
    include_str!("../../migrations/0003_todo.sql"),
    include_str!("../../migrations/0004_task_budget.sql"),
    include_str!("../../migrations/0005_session_choice.sql"),
    include_str!("../../migrations/0006_revert_fork_status.sql"),
];

pub(super) fn run(conn: &mut Connection, path: &Path) -> Result<()> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let known = MIGRATIONS.len() as i64;
    if current > known {
        return Err(StoreError::TooNew {
            path: path.to_owned(),
            found: current,
            known,
        });
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}
