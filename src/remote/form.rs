//! An agent's `elicitation/create` form in Tandem's terms: its requested schema read as a
//! `question::form::Form` (the same reading as an MCP server's), and the person's answers
//! written back as the content ACP carries.

use std::collections::BTreeMap;

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, ElicitationContentValue as Content, ElicitationMode,
};

pub use crate::tool::question::form::Form;
use crate::tool::question::form::FormReply;

/// The form of an `elicitation/create` request (`None` for a URL request or another mode).
pub fn read(request: &CreateElicitationRequest) -> Option<Form> {
    let ElicitationMode::Form(form) = &request.mode else {
        return None;
    };
    let schema = serde_json::to_value(&form.requested_schema).ok()?;
    Some(Form::from_schema(&request.message, &schema))
}

/// The person's answers as ACP content (a value ACP cannot carry is left out).
pub fn content(reply: FormReply) -> Option<BTreeMap<String, Content>> {
    let FormReply::Accept(answers) = reply else {
        return None;
    };
    Some(
        answers
            .into_iter()
            .filter_map(|(name, value)| Some((name, serde_json::from_value(value).ok()?)))
            .collect(),
    )
}
