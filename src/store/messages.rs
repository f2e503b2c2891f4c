//! Message and part rows: upserted as they change, loaded back in id order.

use std::collections::HashMap;

use super::behind::Write;
use super::{Result, Store};
use crate::id::{MessageId, SessionId};
use crate::message::{Message, MessageInfo, Part};

impl Store {
    /// Inserts or replaces a message header and bumps its session's `updated_at`. Written
    /// behind: the call returns at once (an earlier write's failure is returned here).
    pub fn put_message(&self, info: &MessageInfo) -> Result<()> {
        self.write_behind(Write::Message {
            id: info.id.as_str().to_owned(),
            session_id: info.session_id.as_str().to_owned(),
            role: info.role.as_str(),
            data: serde_json::to_string(info)?,
            at: info.completed_at.unwrap_or(info.created_at),
        })
    }

    /// Inserts or replaces one part; written behind like `put_message`.
    pub fn put_part(&self, part: &Part) -> Result<()> {
        self.write_behind(Write::Part {
            id: part.id.as_str().to_owned(),
            message_id: part.message_id.as_str().to_owned(),
            session_id: part.session_id.as_str().to_owned(),
            data: serde_json::to_string(&part.body)?,
        })
    }

    /// Every message of a session with its parts, oldest first.
    pub fn load_messages(&self, session_id: &SessionId) -> Result<Vec<Message>> {
        let conn = self.conn();
        let mut messages = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        {
            let mut stmt = conn
                .prepare_cached("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
            let mut rows = stmt.query([session_id.as_str()])?;
            while let Some(row) = rows.next()? {
                let id: String = row.get(0)?;
                let info: MessageInfo =
                    serde_json::from_str(row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?)?;
                index.insert(id, messages.len());
                messages.push(Message {
                    info,
                    parts: Vec::new(),
                });
            }
        }
        let mut stmt = conn.prepare_cached(
            "SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY id",
        )?;
        let mut rows = stmt.query([session_id.as_str()])?;
        while let Some(row) = rows.next()? {
            let message_id: String = row.get(1)?;
            let Some(&at) = index.get(&message_id) else {
                continue;
            };
            let mut body =
                serde_json::from_str(row.get_ref(2)?.as_str().map_err(rusqlite::Error::from)?)?;
            super::legacy::upgrade(&mut body);
            let part = Part {
                id: row.get::<_, String>(0)?.into(),
                message_id: MessageId(message_id),
                session_id: session_id.clone(),
                body,
            };
            messages[at].parts.push(part);
        }
        Ok(messages)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::id::PartId;
    use crate::message::{PartBody, Role, SessionInfo};

    #[test]
    fn parts_come_back_in_order_under_their_message() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let sid = SessionId::new();
        store
            .create_session(&SessionInfo {
                id: sid.clone(),
                parent_id: None,
                cwd: PathBuf::from("/p"),
                extra_roots: Vec::new(),
                title: "t".into(),
                created_at: 1,
                updated_at: 1,
            })
            .unwrap();
        let info = MessageInfo {
            completed_at: None,
            ..MessageInfo::new(sid.clone(), Role::User, "build", 5)
        };
        store.put_message(&info).unwrap();
        let texts = ["one", "two", "three"];
        let parts: Vec<Part> = texts
            .iter()
            .map(|t| Part {
                id: PartId::new(),
                message_id: info.id.clone(),
                session_id: sid.clone(),
                body: PartBody::Text {
                    text: (*t).into(),
                    synthetic: false,
                },
            })
            .collect();
        // Written out of order; read back in id order.
        store.put_part(&parts[2]).unwrap();
        store.put_part(&parts[0]).unwrap();
        store.put_part(&parts[1]).unwrap();
        let loaded = store.load_messages(&sid).unwrap();
        assert_eq!(loaded.len(), 1);
        assert_eq!(loaded[0].parts, parts);
        let session = store.get_session(&sid).unwrap().unwrap();
        assert_eq!(session.updated_at, 5);
    }
}
