//! What Tandem asks of the editor: permission prompts, questions as forms or prompts, and the
//! editor's files and terminals (the client port).

pub(super) mod client;
pub(super) mod question;
