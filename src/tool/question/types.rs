//! What the `question` tool asks and what comes back: questions with their choices, and the
//! person's reply, the same shapes for the editor, the terminal and a subagent's caller.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::id::SessionId;

/// One question for the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// The complete question, specific and self-contained, ending with a question mark.
    pub question: String,
    /// A very short label for it, at most 30 characters (for example "Database" or "Auth").
    pub header: String,
    /// 2 to 6 distinct choices; leave it empty to ask for an answer in the person's own words.
    #[serde(default)]
    pub options: Vec<Choice>,
    /// Whether the person may pick several of the options.
    #[serde(default)]
    pub multiple: bool,
    /// Whether the person may type an answer of their own besides the options (default true).
    #[serde(default = "yes")]
    pub custom: bool,
}

fn yes() -> bool {
    true
}

/// One choice of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    /// What the person picks: 1 to 5 words.
    pub label: String,
    /// What choosing it means, or its trade-off.
    #[serde(default)]
    pub description: String,
}

impl Question {
    /// Answered only in the person's own words: it has no options.
    pub fn is_free_text(&self) -> bool {
        self.options.is_empty()
    }

    /// `answer` with only what this question offered: options it has (one, unless it takes
    /// several), and typed words only where typing was allowed.
    pub fn keep_offered(&self, mut answer: Answer) -> Answer {
        answer
            .chosen
            .retain(|label| self.options.iter().any(|o| &o.label == label));
        if !self.multiple {
            answer.chosen.truncate(1);
        }
        if !self.custom && !self.is_free_text() {
            answer.typed = None;
        }
        answer
    }
}

impl QuestionReply {
    /// The reply with only what `questions` offered (an editor may send more).
    pub fn offered(self, questions: &[Question]) -> Self {
        match self {
            Self::Answered(answers) => Self::Answered(
                questions
                    .iter()
                    .zip(answers)
                    .map(|(question, answer)| question.keep_offered(answer))
                    .collect(),
            ),
            other => other,
        }
    }
}

/// Questions from one tool call of one session (a subagent's own, for a child's call).
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionRequest {
    pub session_id: SessionId,
    pub call_id: String,
    pub questions: Vec<Question>,
}

/// The person's answer to one question.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    /// The labels of the options chosen.
    pub chosen: Vec<String>,
    /// What the person typed, if anything.
    pub typed: Option<String>,
}

impl Answer {
    pub fn is_empty(&self) -> bool {
        self.chosen.is_empty() && self.typed.as_deref().is_none_or(|t| t.trim().is_empty())
    }
}

/// How the person answered.
#[derive(Debug, Clone, PartialEq)]
pub enum QuestionReply {
    /// One answer per question, in order.
    Answered(Vec<Answer>),
    /// The person chose not to answer.
    Declined,
    /// The question was dismissed, or the turn cancelled while it was open.
    Cancelled,
    /// The person answers in their next message: the turn ends with the question.
    InChat,
    /// Nobody can be asked (no terminal, no editor); why, for the model.
    Unavailable(String),
}

/// A link the person is asked to open (an MCP server's login page).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRequest {
    pub session_id: SessionId,
    /// Names this request, for the editor's `elicitation/complete` later.
    pub id: String,
    /// Why: what the person does there.
    pub message: String,
    pub url: String,
}

/// What the person said to a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkReply {
    /// They will open it.
    Accepted,
    Declined,
    Cancelled,
    /// Nobody can be shown it this way.
    Unavailable,
}
