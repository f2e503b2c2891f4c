//! The `question` tool in the editor: an `elicitation/create` form when the client declares
//! form elicitation, else one permission prompt per question whose options are the answers.
//! Dropping the pending request (the turn was cancelled) withdraws it (`$/cancel_request`).

use std::collections::BTreeMap;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, CreateElicitationRequest, ElicitationAction, ElicitationContentValue,
    ElicitationFormMode, ElicitationSchema, ElicitationSessionScope, ElicitationUrlMode,
    EnumOption, MultiSelectPropertySchema, PermissionOption, PermissionOptionKind,
    RequestPermissionOutcome, RequestPermissionRequest, StringPropertySchema, ToolCallContent,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use agent_client_protocol::{Client, Error};

use crate::acp::updates::route::Router;
use crate::tool::question::{
    Answer, LinkReply, LinkRequest, Question, QuestionReply, QuestionRequest,
};

/// The option of a permission-shaped question that ends the turn for an answer in chat.
const IN_CHAT: &str = "reply-in-chat";

/// Asks through an elicitation form; every question is one field (two with a typed answer).
pub async fn by_form(
    cx: &ConnectionTo<Client>,
    router: &Router,
    request: QuestionRequest,
) -> QuestionReply {
    let (session, call_id) = router.locate(&request.session_id, &request.call_id);
    let scope = ElicitationSessionScope::new(session.to_string())
        .tool_call_id(agent_client_protocol::v1::schema::ToolCallId::new(call_id));
    let message = match request.questions.as_slice() {
        [only] => only.question.clone(),
        many => format!("{} questions from the agent", many.len()),
    };
    let form = CreateElicitationRequest::new(
        ElicitationFormMode::new(scope, schema(&request.questions)),
        message,
    );
    match cx.send_request(form).block_task().await {
        Ok(response) => match response.action {
            ElicitationAction::Accept(accepted) => QuestionReply::Answered(answers(
                &request.questions,
                accepted.content.unwrap_or_default(),
            )),
            ElicitationAction::Decline => QuestionReply::Declined,
            ElicitationAction::Cancel => QuestionReply::Cancelled,
            _ => QuestionReply::Declined,
        },
        Err(error) => unavailable(error),
    }
}

/// Asks the person to open a link (URL-mode elicitation, in the session's scope).
pub async fn open_link(cx: &ConnectionTo<Client>, request: LinkRequest) -> LinkReply {
    let scope = ElicitationSessionScope::new(request.session_id.to_string());
    let ask = CreateElicitationRequest::new(
        ElicitationUrlMode::new(scope, request.id, request.url),
        request.message,
    );
    match cx.send_request(ask).block_task().await {
        Ok(response) => match response.action {
            ElicitationAction::Accept(_) => LinkReply::Accepted,
            ElicitationAction::Decline => LinkReply::Declined,
            _ => LinkReply::Cancelled,
        },
        Err(error) => {
            tracing::warn!(%error, "the editor could not show a link");
            LinkReply::Unavailable
        }
    }
}

/// Field names: `q1`, `q2`… for the choice, `q1_text`… for an answer in the person's words.
fn field(n: usize) -> String {
    format!("q{}", n + 1)
}

fn text_field(n: usize) -> String {
    format!("q{}_text", n + 1)
}

/// The form: per question a single or multiple choice (titled options with descriptions),
/// and a text field when an answer of the person's own is allowed.
fn schema(questions: &[Question]) -> ElicitationSchema {
    let mut schema = ElicitationSchema::new();
    for (n, question) in questions.iter().enumerate() {
        let options: Vec<EnumOption> = question
            .options
            .iter()
            .map(|o| {
                EnumOption::new(o.label.clone(), o.label.clone())
                    .description((!o.description.is_empty()).then(|| o.description.clone()))
            })
            .collect();
        let choice_required = !question.custom;
        if !options.is_empty() && question.multiple {
            let mut multi = MultiSelectPropertySchema::titled(options)
                .title(question.header.clone())
                .description(question.question.clone());
            if choice_required {
                multi = multi.min_items(1);
            }
            schema = schema.property(field(n), multi, choice_required);
        } else if !options.is_empty() {
            let single = StringPropertySchema::new()
                .title(question.header.clone())
                .description(question.question.clone())
                .one_of(options);
            schema = schema.property(field(n), single, choice_required);
        }
        if question.custom {
            let (title, description) = if question.is_free_text() {
                (question.header.clone(), question.question.clone())
            } else {
                (
                    format!("{}: another answer", question.header),
                    "Or answer in your own words".to_owned(),
                )
            };
            let text = StringPropertySchema::new()
                .title(title)
                .description(description);
            schema = schema.property(text_field(n), text, question.is_free_text());
        }
    }
    schema
}

/// The accepted form's values as one answer per question; values that are not among a
/// question's options are dropped (the client is not trusted to have checked them).
fn answers(
    questions: &[Question],
    mut content: BTreeMap<String, ElicitationContentValue>,
) -> Vec<Answer> {
    questions
        .iter()
        .enumerate()
        .map(|(n, question)| {
            let chosen = match content.remove(&field(n)) {
                Some(ElicitationContentValue::String(one)) => vec![one],
                Some(ElicitationContentValue::StringArray(many)) => many,
                _ => Vec::new(),
            };
            let chosen = chosen
                .into_iter()
                .filter(|c| question.options.iter().any(|o| &o.label == c))
                .take(if question.multiple { usize::MAX } else { 1 })
                .collect();
            let typed = match content.remove(&text_field(n)) {
                Some(ElicitationContentValue::String(text)) if !text.trim().is_empty() => {
                    Some(text)
                }
                _ => None,
            };
            Answer { chosen, typed }
        })
        .collect()
}

/// Asks through permission prompts, one per question, whose options are its choices and
/// "Reply in chat instead". A question with no choices is answered in chat at once.
pub async fn by_permission(
    cx: &ConnectionTo<Client>,
    router: &Router,
    request: QuestionRequest,
) -> QuestionReply {
    let (session, call_id) = router.locate(&request.session_id, &request.call_id);
    let mut answers = Vec::new();
    for question in &request.questions {
        if question.is_free_text() {
            return QuestionReply::InChat;
        }
        let mut options: Vec<PermissionOption> = question
            .options
            .iter()
            .enumerate()
            .map(|(j, o)| {
                PermissionOption::new(
                    format!("choice-{j}"),
                    o.label.clone(),
                    PermissionOptionKind::AllowOnce,
                )
            })
            .collect();
        options.push(PermissionOption::new(
            IN_CHAT,
            "Reply in chat instead",
            PermissionOptionKind::RejectOnce,
        ));
        let fields = ToolCallUpdateFields::new()
            .title(format!("{}: {}", question.header, question.question))
            .kind(ToolKind::Think)
            .status(ToolCallStatus::Pending)
            .content(vec![ToolCallContent::from(ContentBlock::from(described(
                question,
            )))]);
        let prompt = RequestPermissionRequest::new(
            session.to_string(),
            ToolCallUpdate::new(call_id.clone(), fields),
            options,
        );
        let picked = match cx.send_request(prompt).block_task().await {
            Ok(response) => match response.outcome {
                RequestPermissionOutcome::Selected(selected) => selected.option_id.0.to_string(),
                _ => return QuestionReply::Cancelled,
            },
            Err(error) => return unavailable(error),
        };
        let Some(index) = picked
            .strip_prefix("choice-")
            .and_then(|j| j.parse::<usize>().ok())
            .filter(|j| *j < question.options.len())
        else {
            return QuestionReply::InChat;
        };
        answers.push(Answer {
            chosen: vec![question.options[index].label.clone()],
            typed: None,
        });
    }
    QuestionReply::Answered(answers)
}

/// The question and what each choice means, as the prompt's body.
fn described(question: &Question) -> String {
    let mut text = question.question.clone();
    for option in &question.options {
        text.push_str(&format!("\n- {}", option.label));
        if !option.description.is_empty() {
            text.push_str(&format!(": {}", option.description));
        }
    }
    if question.multiple {
        text.push_str("\n(Pick one here, or reply in chat to choose several.)");
    }
    text
}

fn unavailable(error: Error) -> QuestionReply {
    tracing::warn!(%error, "the editor could not ask the question");
    QuestionReply::Unavailable(format!("the editor could not show the question ({error})"))
}
