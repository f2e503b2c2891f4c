//! An MCP server's questions for the person (`elicitation/create`) during one of its tool
//! calls, put to the editor as Tandem's own questions through that call. Outside a call nobody
//! is asked, and the server is told no. (Tandem connects with `initialize`, so protocol
//! 2025-11-25 at most: 2026-07-28's `input_required` answers do not arise.)

use std::sync::{Arc, Mutex};

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::Value;

use crate::id::SessionId;
use crate::tool::ClientPort;
use crate::tool::question::form::{Form, FormReply};
use crate::tool::question::{Choice, Question, QuestionRequest};

/// Who answers a server's questions now: the person, through the call that is running.
#[derive(Clone)]
pub(super) struct Asker {
    pub server: String,
    pub client: Arc<dyn ClientPort>,
    pub session_id: SessionId,
    pub call_id: String,
}

/// The calls of one server running now, the latest last (its questions go to it).
#[derive(Clone, Default)]
pub(super) struct Askers(Arc<Mutex<Vec<(u64, Asker)>>>);

/// While held, the call it was made for answers its server's questions.
pub(super) struct Asking {
    askers: Askers,
    id: u64,
}

impl Drop for Asking {
    fn drop(&mut self) {
        self.askers.lock().retain(|(id, _)| *id != self.id);
    }
}

impl Askers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Asker)>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `asker` answers until the returned guard is dropped.
    pub fn during(&self, asker: Asker) -> Asking {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.lock().push((id, asker));
        Asking {
            askers: self.clone(),
            id,
        }
    }

    pub fn current(&self) -> Option<Asker> {
        self.lock().last().map(|(_, asker)| asker.clone())
    }
}

/// The answer to one of a server's questions.
pub(super) async fn answer(asker: Option<Asker>, params: ElicitRequestParams) -> ElicitResult {
    let Some(asker) = asker else {
        tracing::info!("an MCP server asked a question outside any call of its; declined");
        return ElicitResult::new(ElicitationAction::Decline);
    };
    let ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = params
    else {
        // A link to open: not yet shown to the person (see the URL mode).
        return ElicitResult::new(ElicitationAction::Decline);
    };
    let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
    let form = Form::from_schema(&message, &schema);
    let mut questions = form.questions();
    if questions.is_empty() {
        questions.push(confirmation(&message));
    }
    let intro = format!("The MCP server {} asks: {message}", asker.server);
    if let Some(first) = questions.first_mut()
        && first.question != message
    {
        first.question = format!("{intro}\n\n{}", first.question);
    } else if let Some(first) = questions.first_mut() {
        first.question = intro;
    }
    let request = QuestionRequest {
        session_id: asker.session_id.clone(),
        call_id: asker.call_id.clone(),
        questions: questions.clone(),
    };
    let reply = asker
        .client
        .ask_questions(request)
        .await
        .offered(&questions);
    let reply = match form.fields.is_empty() {
        true => confirmed(reply),
        false => form.answers(reply),
    };
    match reply {
        FormReply::Accept(content) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        FormReply::Decline => ElicitResult::new(ElicitationAction::Decline),
        FormReply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

const ACCEPT: &str = "Accept";
const DECLINE: &str = "Decline";

/// A form with no fields: the server asks only for a yes or a no.
fn confirmation(message: &str) -> Question {
    let choice = |label: &str| Choice {
        label: label.into(),
        description: String::new(),
    };
    Question {
        question: message.to_owned(),
        header: "MCP server".into(),
        options: vec![choice(ACCEPT), choice(DECLINE)],
        multiple: false,
        custom: false,
    }
}

fn confirmed(reply: crate::tool::question::QuestionReply) -> FormReply {
    use crate::tool::question::QuestionReply;
    match reply {
        QuestionReply::Answered(answers)
            if answers
                .first()
                .is_some_and(|a| a.chosen.iter().any(|c| c == ACCEPT)) =>
        {
            FormReply::Accept(Default::default())
        }
        QuestionReply::Answered(_) | QuestionReply::Declined => FormReply::Decline,
        _ => FormReply::Cancel,
    }
}
