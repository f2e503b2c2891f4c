//! An agent's form (`elicitation/create`) put to the person the way Tandem's own `question`
//! tool asks: one question per field (its choices as options, yes or no for a flag, the
//! person's own words for text and numbers), the answers written back as the agent's content.

use agent_client_protocol::v1::schema::{
    CreateElicitationResponse, ElicitationAcceptAction, ElicitationAction,
};

use super::form::{self, Answers, FieldKind, Form};
use super::host::RemoteHost;
use crate::tool::question::{Choice, Question, QuestionReply};

/// A question's header is kept short.
const HEADER: usize = 30;

/// Asks the person; the agent's answer.
pub async fn ask(host: &dyn RemoteHost, form: Form) -> CreateElicitationResponse {
    let questions: Vec<Question> = form
        .fields
        .iter()
        .map(|field| {
            let options: Vec<String> = match &field.kind {
                FieldKind::Choice { values, .. } => values.iter().map(|(_, t)| t.clone()).collect(),
                FieldKind::Flag => vec![form::YES.into(), form::NO.into()],
                _ => Vec::new(),
            };
            Question {
                question: field
                    .description
                    .clone()
                    .unwrap_or_else(|| form.message.clone()),
                header: field.title.chars().take(HEADER).collect(),
                custom: options.is_empty(),
                options: options
                    .into_iter()
                    .map(|label| Choice {
                        label,
                        description: String::new(),
                    })
                    .collect(),
                multiple: matches!(field.kind, FieldKind::Choice { multiple: true, .. }),
            }
        })
        .collect();
    let action = match host.ask(questions).await {
        QuestionReply::Answered(answers) => {
            let mut content = Answers::new();
            for (field, answer) in form.fields.iter().zip(&answers) {
                if let Some(value) = form::value(field, &answer.chosen, answer.typed.as_deref()) {
                    content.insert(field.name.clone(), value);
                }
            }
            ElicitationAction::Accept(ElicitationAcceptAction::new().content(content))
        }
        QuestionReply::Declined => ElicitationAction::Decline,
        _ => ElicitationAction::Cancel,
    };
    CreateElicitationResponse::new(action)
}
