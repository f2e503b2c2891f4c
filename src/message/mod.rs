//! The message/part model every layer speaks: sessions, messages made of ordered parts, tool
//! states, usage. The bottom of the stack: it imports nothing of the layers above it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::id::{MessageId, PartId, SessionId};

mod tool;
pub use tool::{Attachment, FileDiff, Location, ToolKind, ToolPart, ToolState};

/// A session record: one conversation, optionally the child of another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub id: SessionId,
    pub parent_id: Option<SessionId>,
    pub cwd: PathBuf,
    /// The workspace's other roots (absolute), each a project folder like the cwd.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_roots: Vec<PathBuf>,
    pub title: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A session's pending revert: messages from `message_id` (from `part_id` within it) are
/// hidden, the files the later steps changed are back as they were, and `snapshot` holds them
/// as they were before the revert, for unrevert. The next prompt makes it permanent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRevert {
    pub message_id: MessageId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_id: Option<PartId>,
    /// The project before the revert (None when snapshots were off: only messages hidden).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// The files the revert put back (relative to the project root).
    #[serde(default)]
    pub files: Vec<String>,
    /// What unrevert would bring back.
    #[serde(default)]
    pub diff: DiffSummary,
}

/// What a session is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SessionStatus {
    #[default]
    Idle,
    Busy,
    /// A model request failed and is tried again at `next` (ms since the epoch).
    Retry {
        attempt: u32,
        message: String,
        next: i64,
    },
}

/// Where a forked session came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkOrigin {
    pub session_id: SessionId,
    /// The message the copy stopped before (None: the whole history).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<MessageId>,
    /// This is fork number `number` of that session.
    pub number: u32,
}

/// An OpenAI Responses reasoning item as it came back: sent again in the next request so the
/// model keeps its reasoning between steps without the provider storing anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningItem {
    pub id: String,
    /// `encrypted_content`: the reasoning itself, readable only by the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<String>,
}

/// A web page a hosted search found or the answer cites: where it is and what it is called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// Why a model step (or a whole assistant message) ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model finished its answer.
    Stop,
    /// The model hit its output token limit.
    Length,
    /// The model asked for tools; the loop goes on.
    ToolCalls,
    /// The provider refused or filtered the answer.
    ContentFilter,
    /// The person cancelled the turn.
    Cancelled,
    /// The turn failed; the message's `error` says why.
    Error,
    /// The step budget ran out while the model still wanted tools.
    MaxSteps,
}

/// Token counts of one model call, normalised across providers: `input` excludes cached tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    #[serde(default)]
    pub reasoning: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
}

impl Usage {
    /// Tokens the conversation occupies in the context window after this call.
    pub fn context_tokens(&self) -> u64 {
        self.input + self.cache_read + self.cache_write + self.output
    }
}

/// A message header; its content lives in its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageInfo {
    pub id: MessageId,
    pub session_id: SessionId,
    pub role: Role,
    pub created_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<i64>,
    /// The agent that wrote (assistant) or was addressed by (user) this message.
    pub agent: String,
    /// `provider/model` of the model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<FinishReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// An assistant message holding a compaction's summary: the model sees the conversation
    /// from here on (its kept tail, then what came after), never what it replaced.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summary: bool,
    /// A user message sent while a turn was running: it joined that turn at its next step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub joined: bool,
    /// An answer that broke off mid-stream and was asked for again: the person saw it, the
    /// model never does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retried: bool,
    /// What the files gained and lost: an assistant message's own step, a user message's
    /// whole turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffSummary>,
}

/// The size of a change to the project's files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffSummary {
    pub files: u64,
    pub additions: u64,
    pub deletions: u64,
}

impl std::fmt::Display for DiffSummary {
    /// "2 files changed (+5 −1)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = if self.files == 1 { "file" } else { "files" };
        write!(
            f,
            "{} {files} changed (+{} \u{2212}{})",
            self.files, self.additions, self.deletions
        )
    }
}

impl MessageInfo {
    /// A new message of `role` in `session_id` for `agent`, begun at `now`, with nothing else
    /// set; a user message is complete at once, an assistant message when its step finishes.
    pub fn new(session_id: SessionId, role: Role, agent: impl Into<String>, now: i64) -> Self {
        Self {
            id: MessageId::new(),
            session_id,
            role,
            created_at: now,
            completed_at: (role == Role::User).then_some(now),
            agent: agent.into(),
            model: None,
            finish: None,
            usage: None,
            cost: None,
            error: None,
            summary: false,
            joined: false,
            retried: false,
            diff: None,
        }
    }
}

/// One addressable piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub id: PartId,
    pub message_id: MessageId,
    pub session_id: SessionId,
    #[serde(flatten)]
    pub body: PartBody,
}

/// What a part holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum PartBody {
    /// Plain text; `synthetic` text was written by Tandem, not by the person or the model.
    Text {
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        synthetic: bool,
    },
    /// The model's visible reasoning; Anthropic signs it so it can be sent back, and OpenAI's
    /// Responses API returns it as an item (with its hidden reasoning encrypted) to send back.
    Reasoning {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        item: Option<ReasoningItem>,
    },
    /// Binary content such as an image, as a `data:` URL.
    File {
        mime: String,
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
    },
    /// A resource the person attached: a link, or its embedded text.
    Resource {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// A tool call and its state.
    Tool(Box<ToolPart>),
    /// The pages the answer's words cite (a provider's own web search): shown to the person
    /// after the answer, never sent to the model.
    Sources { sources: Vec<Source> },
    /// A model step began; `snapshot` is the project's files before its tool calls ran (taken
    /// only for steps whose calls may change files).
    StepStart {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        snapshot: Option<String>,
    },
    /// The files a step changed, and the snapshot that holds them as they were before it.
    Patch {
        snapshot: String,
        files: Vec<String>,
    },
    /// The mark of a compaction, in its summary message: why it ran, where the turns kept
    /// verbatim begin, and how many tokens it freed.
    Compaction(Compaction),
    /// A model request failed and is tried again: which attempt failed, why, and how long
    /// Tandem waits before the next. Shown to the person; never sent to the model.
    Retry {
        attempt: u32,
        error: String,
        delay_ms: u64,
    },
    /// A model step ended.
    StepFinish {
        reason: FinishReason,
        usage: Usage,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost: Option<f64>,
    },
}

impl PartBody {
    /// A tool part (boxed: tool calls are much larger than the other parts).
    pub fn tool(call: ToolPart) -> Self {
        PartBody::Tool(Box::new(call))
    }

    /// A `sources` part as the Markdown list shown after the answer.
    pub fn sources_text(&self) -> Option<String> {
        let PartBody::Sources { sources } = self else {
            return None;
        };
        let mut text = String::from("\n\nSources:\n");
        for (n, source) in sources.iter().enumerate() {
            let title = source
                .title
                .as_deref()
                .unwrap_or(&source.url)
                .replace(['[', ']'], "");
            text.push_str(&format!("{}. [{title}]({})\n", n + 1, source.url));
        }
        Some(text)
    }

    /// What a `retry` part tells the person, in one sentence.
    pub fn retry_text(&self) -> Option<String> {
        let PartBody::Retry {
            attempt,
            error,
            delay_ms,
        } = self
        else {
            return None;
        };
        let wait = if delay_ms % 1000 == 0 {
            format!("{} s", delay_ms / 1000)
        } else {
            format!("{:.1} s", *delay_ms as f64 / 1000.0)
        };
        Some(format!(
            "The model request failed (attempt {attempt}): {}. Trying again in {wait}.",
            error.trim_end_matches('.')
        ))
    }
}

/// How a compaction came about and what it kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compaction {
    /// Tandem started it (the window was full) rather than the person (`/compact`).
    pub auto: bool,
    /// The provider refused a request as too long (rather than the usage formula predicting it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overflow: bool,
    /// The first message kept verbatim after the summary (None: only the summary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail_start: Option<MessageId>,
    /// Context tokens before, and an estimate after.
    #[serde(default)]
    pub tokens_before: u64,
    #[serde(default)]
    pub tokens_after: u64,
}

/// A message with its parts, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub info: MessageInfo,
    pub parts: Vec<Part>,
}

/// The person's words when a prompt is nothing but them (one text part of their own): how
/// Tandem's session commands (`/undo`, `/jobs`) are recognised.
pub fn sole_text(content: &[PartBody]) -> Option<&str> {
    match content {
        [
            PartBody::Text {
                text,
                synthetic: false,
            },
        ] => Some(text),
        _ => None,
    }
}

impl Message {
    /// The text of its parts that are not synthetic (the person's or the model's words).
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match &p.body {
            PartBody::Text { text, synthetic } if !synthetic => Some(text.as_str()),
            _ => None,
        })
    }

    /// `info` with a new part for each of `bodies`, in order.
    pub fn with_parts(info: MessageInfo, bodies: impl IntoIterator<Item = PartBody>) -> Self {
        let parts = bodies
            .into_iter()
            .map(|body| Part {
                id: PartId::new(),
                message_id: info.id.clone(),
                session_id: info.session_id.clone(),
                body,
            })
            .collect();
        Self { info, parts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parts_serialise_with_a_type_tag() {
        let part = Part {
            id: PartId::from("p1"),
            message_id: MessageId::from("m1"),
            session_id: SessionId::from("s1"),
            body: PartBody::tool(ToolPart {
                call_id: "c1".into(),
                tool: "list".into(),
                kind: None,
                state: ToolState::Pending { input: json!({}) },
                title: None,
                locations: vec![],
                pruned_at: None,
                hosted: false,
            }),
        };
        let value = serde_json::to_value(&part).unwrap();
        assert_eq!(
            value,
            json!({"id":"p1","message_id":"m1","session_id":"s1","type":"tool",
                   "call_id":"c1","tool":"list","state":{"status":"pending","input":{}}})
        );
        let back: Part = serde_json::from_value(value).unwrap();
        assert_eq!(back, part);
    }
}
