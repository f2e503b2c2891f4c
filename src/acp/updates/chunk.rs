//! A piece of text the editor shows as part of a message (an answer, a thought, a line Tandem
//! adds), under the message id that groups it: the one shape every ACP text update shares.

use agent_client_protocol::v1::schema::{ContentBlock, ContentChunk, MessageId};

/// `text` as a chunk of message `message_id`.
pub fn chunk(text: String, message_id: &str) -> ContentChunk {
    ContentChunk::new(ContentBlock::from(text)).message_id(MessageId::new(message_id.to_owned()))
}
