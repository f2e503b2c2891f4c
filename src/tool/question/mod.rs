//! `question`: the model asks the person one or more questions with choices and gets the
//! answers as its result, through the editor's form, its permission prompt, or the terminal.

pub mod form;
mod types;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

pub use types::{Answer, Choice, LinkReply, LinkRequest, Question, QuestionReply, QuestionRequest};

use super::{Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, parse_input};

pub struct QuestionTool;

/// At most this many questions in one call, and this many options in one question.
const MAX_QUESTIONS: usize = 4;
const MAX_OPTIONS: usize = 6;
/// A header longer than this is cut.
const MAX_HEADER: usize = 30;

const DESCRIPTION: &str = "Asks the person one or more questions and waits for the answers. \
Use it when a choice is theirs to make and you cannot tell from the project or the \
conversation: which approach, which library, what a vague request means, whether to go on \
with something risky. Do not guess in those cases; do not ask about what you can find out \
yourself, and do not ask for permission to run a tool (the tools ask on their own).\n\n\
Each question has a short header, the question itself, and 2-6 options (a label of a few \
words, and a description of what it means); put the option you recommend first and add \
\"(Recommended)\" to its label. Set `multiple` when several options may be chosen. The person \
can also type an answer of their own unless `custom` is false. A question without options is \
answered in the person's own words. Ask up to 4 related questions in one call.";

/// The `question` tool's arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionInput {
    /// The questions to ask, 1 to 4.
    pub questions: Vec<Question>,
}

impl Tool for QuestionTool {
    fn name(&self) -> &'static str {
        "question"
    }

    fn claude_name(&self) -> Option<String> {
        Some("AskUserQuestion".into())
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn parameters(&self) -> Value {
        input_schema::<QuestionInput>()
    }

    fn describe(
        &self,
        input: &Value,
        _cwd: &std::path::Path,
    ) -> (String, Vec<crate::message::Location>) {
        let headers: Vec<&str> = input
            .get("questions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|q| q.get("header").and_then(Value::as_str))
            .collect();
        let title = match headers.as_slice() {
            [] => "Question".to_owned(),
            headers => format!("Question: {}", headers.join(", ")),
        };
        (title, Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: QuestionInput = parse_input(self.name(), input)?;
            let questions = checked(input.questions)?;
            ctx.started();
            let request = QuestionRequest {
                session_id: ctx.session_id.clone(),
                call_id: ctx.call_id.clone(),
                questions: questions.clone(),
            };
            let reply = ctx.client.ask_questions(request).await.offered(&questions);
            answer(&questions, reply)
        })
    }
}

/// The questions as the person will see them, or what the model must fix.
fn checked(mut questions: Vec<Question>) -> Result<Vec<Question>, ToolError> {
    let invalid = |reason: String| ToolError::InvalidInput {
        tool: "question".into(),
        field: Some("questions".into()),
        reason,
    };
    if questions.is_empty() || questions.len() > MAX_QUESTIONS {
        return Err(invalid(format!(
            "ask 1 to {MAX_QUESTIONS} questions (got {})",
            questions.len()
        )));
    }
    for (n, question) in questions.iter_mut().enumerate() {
        let n = n + 1;
        question.question = question.question.trim().to_owned();
        if question.question.is_empty() {
            return Err(invalid(format!("question {n} has no text")));
        }
        question.header = short_header(&question.header, &question.question);
        let count = question.options.len();
        if count == 1 || count > MAX_OPTIONS {
            return Err(invalid(format!(
                "question {n} has {count} option(s): give 2 to {MAX_OPTIONS}, or none for an answer in the person's own words"
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for option in &mut question.options {
            option.label = option.label.trim().to_owned();
            option.description = option.description.trim().to_owned();
            if option.label.is_empty() || !seen.insert(option.label.to_lowercase()) {
                return Err(invalid(format!(
                    "question {n}'s option labels must be non-empty and distinct"
                )));
            }
        }
        if question.is_free_text() {
            question.custom = true;
            question.multiple = false;
        }
    }
    Ok(questions)
}

/// The header, one line of at most 30 characters (the question's start when it is empty).
fn short_header(header: &str, question: &str) -> String {
    let source = if header.trim().is_empty() {
        question
    } else {
        header
    };
    crate::utf8::one_line(source, MAX_HEADER).unwrap_or_default()
}

/// The person's reply as the model reads it.
fn answer(questions: &[Question], reply: QuestionReply) -> Result<ToolOutput, ToolError> {
    let title = questions
        .iter()
        .map(|q| q.header.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let output = |text: String, metadata: Value| ToolOutput {
        title: title.clone(),
        output: text,
        metadata,
        ..Default::default()
    };
    match reply {
        QuestionReply::Answered(answers) => {
            let mut text = String::from("The person answered:\n");
            for (n, (question, answer)) in questions.iter().zip(&answers).enumerate() {
                text.push_str(&format!(
                    "\n{}. {} ({})\n   Answer: {}\n",
                    n + 1,
                    question.question,
                    question.header,
                    said(answer)
                ));
            }
            text.push_str("\nGo on with these answers.");
            let shown: Vec<Value> = answers
                .iter()
                .map(|a| json!({"chosen": a.chosen, "typed": a.typed}))
                .collect();
            Ok(output(text, json!({"answers": shown})))
        }
        QuestionReply::Declined => Ok(output(
            "The person declined to answer. Do not ask the same again: go on with your best \
             judgment, and say what you assumed."
                .into(),
            json!({"answers": null, "declined": true}),
        )),
        QuestionReply::Cancelled => Err(ToolError::Cancelled),
        QuestionReply::InChat => {
            let asked = questions
                .iter()
                .map(|q| q.question.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let mut out = output(
                format!(
                    "The person will answer in their next message; the turn ends here. The \
                     question, as they saw it:\n{asked}"
                ),
                json!({"answers": null, "inChat": true}),
            );
            out.ends_turn = Some(asked);
            Ok(out)
        }
        QuestionReply::Unavailable(why) => Err(ToolError::failed(format!(
            "No one could be asked: {why}. Decide yourself where it is safe to, say what you \
             assumed, and leave what only the person can decide for them."
        ))),
    }
}

/// One answer in words: the options chosen and what was typed.
fn said(answer: &Answer) -> String {
    if answer.is_empty() {
        return "(no answer)".into();
    }
    let mut parts: Vec<String> = answer.chosen.clone();
    if let Some(typed) = answer
        .typed
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        parts.push(format!("\"{typed}\" (in their own words)"));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests;
