//! Remembered permission answers ("always allow", "always reject"), per project.

use rusqlite::params;

use super::{Result, Store};
use crate::permission::{Action, Rule};

impl Store {
    /// The project's remembered answers as rules, oldest first (so the newest wins).
    pub fn approvals(&self, project: &str) -> Result<Vec<Rule>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT permission, pattern, action FROM permission_approval
             WHERE project = ?1 ORDER BY created_at, rowid",
        )?;
        let rules = stmt
            .query_map([project], |row| {
                let action: String = row.get(2)?;
                Ok(Rule {
                    permission: row.get(0)?,
                    pattern: row.get(1)?,
                    action: if action == "deny" {
                        Action::Deny
                    } else {
                        Action::Allow
                    },
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rules)
    }

    /// Remembers an answer; a later answer for the same pattern replaces it.
    pub fn put_approval(&self, project: &str, rule: &Rule, at: i64) -> Result<()> {
        let action = match rule.action {
            Action::Deny => "deny",
            _ => "allow",
        };
        self.conn().execute(
            "INSERT INTO permission_approval (project, permission, pattern, action, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(project, permission, pattern) DO UPDATE
             SET action = excluded.action, created_at = excluded.created_at",
            params![project, rule.permission, rule.pattern, action, at],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_persist_and_the_newest_wins() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        store
            .put_approval("/p", &Rule::new("bash", "git push *", Action::Allow), 1)
            .unwrap();
        store
            .put_approval("/p", &Rule::new("bash", "rm *", Action::Deny), 2)
            .unwrap();
        store
            .put_approval("/q", &Rule::new("bash", "ls *", Action::Allow), 3)
            .unwrap();
        store
            .put_approval("/p", &Rule::new("bash", "git push *", Action::Deny), 4)
            .unwrap();
        drop(store);
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(
            store.approvals("/p").unwrap(),
            [
                Rule::new("bash", "rm *", Action::Deny),
                Rule::new("bash", "git push *", Action::Deny)
            ]
        );
    }
}
