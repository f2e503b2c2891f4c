//! A session's chosen mode (primary agent), model, variant and approval level, stored so a reopened session, in this
//! process or the next, runs as the person left it.

use rusqlite::{OptionalExtension, params};

use super::{Result, Store};
use crate::id::SessionId;

/// What the person chose for a session; `None` where they chose nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionChoice {
    pub agent: Option<String>,
    pub model: Option<String>,
    /// The model variant; `None` is the model's default.
    pub variant: Option<String>,
    /// The approval level's id; `None` is the person's rules as they are.
    pub approval: Option<String>,
    /// What the editor appends to the agent's system prompt.
    pub client_prompt: Option<String>,
}

impl Store {
    pub fn session_choice(&self, session_id: &SessionId) -> Result<SessionChoice> {
        Ok(self
            .conn()
            .query_row(
                "SELECT agent, model, variant, approval, client_prompt FROM session_choice
                 WHERE session_id = ?1",
                [session_id.as_str()],
                |r| {
                    Ok(SessionChoice {
                        agent: r.get(0)?,
                        model: r.get(1)?,
                        variant: r.get(2)?,
                        approval: r.get(3)?,
                        client_prompt: r.get(4)?,
                    })
                },
            )
            .optional()?
            .unwrap_or_default())
    }

    pub fn set_session_agent(&self, session_id: &SessionId, agent: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_choice (session_id, agent) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET agent = excluded.agent",
            params![session_id.as_str(), agent],
        )?;
        Ok(())
    }

    /// Stores the variant (None: back to the model's default).
    pub fn set_session_variant(&self, session_id: &SessionId, variant: Option<&str>) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_choice (session_id, variant) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET variant = excluded.variant",
            params![session_id.as_str(), variant],
        )?;
        Ok(())
    }

    /// Stores what the editor appends to the system prompt (None: nothing).
    pub fn set_session_client_prompt(
        &self,
        session_id: &SessionId,
        prompt: Option<&str>,
    ) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_choice (session_id, client_prompt) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET client_prompt = excluded.client_prompt",
            params![session_id.as_str(), prompt],
        )?;
        Ok(())
    }

    /// Stores the approval level (its id).
    pub fn set_session_approval(&self, session_id: &SessionId, approval: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_choice (session_id, approval) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET approval = excluded.approval",
            params![session_id.as_str(), approval],
        )?;
        Ok(())
    }

    pub fn set_session_model(&self, session_id: &SessionId, model: &str) -> Result<()> {
        self.conn().execute(
            "INSERT INTO session_choice (session_id, model) VALUES (?1, ?2)
             ON CONFLICT(session_id) DO UPDATE SET model = excluded.model",
            params![session_id.as_str(), model],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::SessionInfo;

    #[test]
    fn a_choice_survives_reopening_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let id = SessionId::from("s1");
        {
            let store = Store::open_in(dir.path()).unwrap();
            store
                .create_session(&SessionInfo {
                    id: id.clone(),
                    parent_id: None,
                    cwd: "/p".into(),
                    extra_roots: Vec::new(),
                    title: "t".into(),
                    created_at: 1,
                    updated_at: 1,
                })
                .unwrap();
            assert_eq!(store.session_choice(&id).unwrap(), SessionChoice::default());
            store.set_session_agent(&id, "plan").unwrap();
            store.set_session_model(&id, "mock/m").unwrap();
            store.set_session_agent(&id, "plan").unwrap();
            store.set_session_variant(&id, Some("high")).unwrap();
            store.set_session_approval(&id, "full-access").unwrap();
        }
        let store = Store::open_in(dir.path()).unwrap();
        assert_eq!(
            store.session_choice(&id).unwrap(),
            SessionChoice {
                agent: Some("plan".into()),
                model: Some("mock/m".into()),
                variant: Some("high".into()),
                approval: Some("full-access".into()),
                client_prompt: None,
            }
        );
    }
}
