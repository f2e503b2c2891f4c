//! An agent's form (`elicitation/create`) put to the person the way Tandem's own `question`
//! tool asks, the answers written back as the agent's content.

use agent_client_protocol::v1::schema::{
    CreateElicitationResponse, ElicitationAcceptAction, ElicitationAction,
};

use super::form::{self, Form};
use super::host::RemoteHost;
use crate::tool::question::form::FormReply;

/// Asks the person; the agent's answer.
pub async fn ask(host: &dyn RemoteHost, form: Form) -> CreateElicitationResponse {
    let reply = form.answers(host.ask(form.questions()).await);
    let action = match reply {
        FormReply::Decline => ElicitationAction::Decline,
        FormReply::Cancel => ElicitationAction::Cancel,
        accepted => ElicitationAction::Accept(
            ElicitationAcceptAction::new().content(form::content(accepted).unwrap_or_default()),
        ),
    };
    CreateElicitationResponse::new(action)
}
