//! Copies of a conversation under new ids, for a fork and for what a permanent revert would
//! otherwise delete: the same messages in the same order, links between them remapped.

use std::collections::HashMap;

use crate::id::{MessageId, PartId, SessionId};
use crate::message::{Message, MessageInfo, Part, PartBody};

/// `messages` with new ids in `session`, in the same order, links between them remapped.
pub(in crate::session) fn copy_messages(messages: &[Message], session: &SessionId) -> Vec<Message> {
    let ids: HashMap<&MessageId, MessageId> = messages
        .iter()
        .map(|m| (&m.info.id, MessageId::new()))
        .collect();
    messages
        .iter()
        .map(|message| {
            let info = MessageInfo {
                id: ids[&message.info.id].clone(),
                session_id: session.clone(),
                ..message.info.clone()
            };
            let parts = message
                .parts
                .iter()
                .map(|part| {
                    let mut body = part.body.clone();
                    if let PartBody::Compaction(compaction) = &mut body {
                        compaction.tail_start = compaction
                            .tail_start
                            .as_ref()
                            .and_then(|t| ids.get(t).cloned());
                    }
                    Part {
                        id: PartId::new(),
                        message_id: info.id.clone(),
                        session_id: session.clone(),
                        body,
                    }
                })
                .collect();
            Message { info, parts }
        })
        .collect()
}
