//! Tandem messages from another agent's record, built in the order it happened: the person's
//! words, then each model answer as one assistant message (a step) with its reasoning, words
//! and tool calls, each call completed by its result when that comes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::id::{PartId, SessionId};
use crate::message::{
    FileDiff, FinishReason, Message, MessageInfo, Part, PartBody, Role, ToolPart, ToolState, Usage,
};
use crate::tool::Registry;

/// The agent name imported messages are marked with (Tandem's own build agent).
const AGENT: &str = "build";

pub struct Builder {
    session: SessionId,
    cwd: PathBuf,
    tools: Registry,
    messages: Vec<Message>,
    /// The assistant message being written (an index into `messages`).
    open: Option<usize>,
    /// Tool call id → (message, part) it is in.
    calls: HashMap<String, (usize, usize)>,
    /// The last time seen, for records that carry none.
    last_at: i64,
    /// The usage of the answer being written, once reported.
    usage: Option<Usage>,
}

impl Builder {
    pub fn new(session: SessionId, cwd: &Path) -> Self {
        Self {
            session,
            cwd: cwd.to_owned(),
            tools: Registry::builtin(),
            messages: Vec::new(),
            open: None,
            calls: HashMap::new(),
            last_at: 0,
            usage: None,
        }
    }

    fn at(&mut self, at: Option<i64>) -> i64 {
        if let Some(at) = at {
            self.last_at = at;
        }
        self.last_at
    }

    fn part(&self, message: &MessageInfo, body: PartBody) -> Part {
        Part {
            id: PartId::new(),
            message_id: message.id.clone(),
            session_id: self.session.clone(),
            body,
        }
    }

    /// The person's words.
    pub fn user(&mut self, text: &str, at: Option<i64>) {
        self.end_step(None, None);
        let at = self.at(at);
        let info = MessageInfo::new(self.session.clone(), Role::User, AGENT, at);
        let body = PartBody::Text {
            text: text.to_owned(),
            synthetic: false,
        };
        let part = self.part(&info, body);
        self.messages.push(Message {
            info,
            parts: vec![part],
        });
    }

    /// The assistant message being written, begun (answering as `model`) if none is.
    fn step(&mut self, model: Option<&str>, at: Option<i64>) -> usize {
        if let Some(open) = self.open {
            return open;
        }
        let at = self.at(at);
        let mut info = MessageInfo::new(self.session.clone(), Role::Assistant, AGENT, at);
        info.model = model.map(str::to_owned);
        let start = self.part(&info, PartBody::StepStart { snapshot: None });
        self.messages.push(Message {
            info,
            parts: vec![start],
        });
        self.open = Some(self.messages.len() - 1);
        self.messages.len() - 1
    }

    /// Starts a new model answer (ending the one before, if any).
    pub fn new_step(&mut self, model: Option<&str>, at: Option<i64>) {
        self.end_step(None, None);
        self.step(model, at);
    }

    fn push(&mut self, model: Option<&str>, at: Option<i64>, body: PartBody) -> (usize, usize) {
        let index = self.step(model, at);
        let part = self.part(&self.messages[index].info, body);
        self.messages[index].parts.push(part);
        (index, self.messages[index].parts.len() - 1)
    }

    pub fn reasoning(&mut self, text: &str, signature: Option<String>, at: Option<i64>) {
        let body = PartBody::Reasoning {
            text: text.to_owned(),
            signature,
            item: None,
        };
        self.push(None, at, body);
    }

    pub fn text(&mut self, text: &str, model: Option<&str>, at: Option<i64>) {
        let body = PartBody::Text {
            text: text.to_owned(),
            synthetic: false,
        };
        self.push(model, at, body);
    }

    /// A tool call of the model: `name` is Tandem's name for it where there is one, and
    /// `input` the input in Tandem's shape.
    pub fn call(
        &mut self,
        id: &str,
        name: &str,
        input: Value,
        model: Option<&str>,
        at: Option<i64>,
    ) {
        let started = self.at(at);
        let (title, locations) = match self.tools.get(name) {
            Some(tool) if input.is_object() => {
                let (title, locations) = tool.describe(&input, &self.cwd);
                (Some(title).filter(|t| !t.is_empty()), locations)
            }
            _ => (None, Vec::new()),
        };
        let body = PartBody::tool(ToolPart {
            call_id: id.to_owned(),
            kind: self.tools.kind_of(name),
            tool: name.to_owned(),
            state: ToolState::Running {
                input,
                title: None,
                started_at: started,
            },
            title,
            locations,
            pruned_at: None,
            hosted: false,
        });
        let place = self.push(model, at, body);
        self.calls.insert(id.to_owned(), place);
    }

    /// The result of call `id` (ignored for a call never seen).
    pub fn result(
        &mut self,
        id: &str,
        output: String,
        error: bool,
        diffs: Vec<FileDiff>,
        at: Option<i64>,
    ) {
        let ended = self.at(at);
        let Some(&(message, part)) = self.calls.get(id) else {
            return;
        };
        let PartBody::Tool(call) = &mut self.messages[message].parts[part].body else {
            return;
        };
        let (input, started_at) = match &call.state {
            ToolState::Running {
                input, started_at, ..
            } => (input.clone(), *started_at),
            other => (other.input().clone(), ended),
        };
        call.state = if error {
            ToolState::Error {
                input,
                error: output,
                shown: None,
                started_at,
                ended_at: ended,
            }
        } else {
            ToolState::Completed {
                input,
                title: call.title.clone().unwrap_or_default(),
                output,
                metadata: Value::Null,
                diffs,
                attachments: Vec::new(),
                terminal_id: None,
                started_at,
                ended_at: ended,
            }
        };
    }

    /// The usage the model answer being written reported (kept for its finish).
    pub fn usage(&mut self, usage: Usage) {
        self.usage = Some(usage);
    }

    /// Ends the model answer being written: its finish (with `usage`, if the record has it).
    pub fn end_step(&mut self, usage: Option<Usage>, reason: Option<FinishReason>) {
        let Some(index) = self.open.take() else {
            return;
        };
        let called = self.messages[index]
            .parts
            .iter()
            .any(|p| matches!(p.body, PartBody::Tool(_)));
        let reason = reason.unwrap_or(if called {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        });
        let usage = usage.or(self.usage.take()).unwrap_or_default();
        let finish = PartBody::StepFinish {
            reason: reason.clone(),
            usage,
            cost: None,
        };
        let part = self.part(&self.messages[index].info, finish);
        let at = self.last_at;
        let message = &mut self.messages[index];
        message.parts.push(part);
        message.info.completed_at = Some(at.max(message.info.created_at));
        message.info.finish = Some(reason);
        message.info.usage = Some(usage);
    }

    /// The messages, the last answer ended. Calls that never got a result are left as
    /// interrupted (their replay says so; the model is told they were).
    pub fn finish(mut self) -> Vec<Message> {
        self.end_step(None, None);
        let unanswered: Vec<String> = self
            .calls
            .iter()
            .filter(|(_, (m, p))| {
                matches!(&self.messages[*m].parts[*p].body,
                    PartBody::Tool(call) if !call.state.is_finished())
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in unanswered {
            let note = "The record holds no result for this call.".to_owned();
            self.result(&id, note, true, Vec::new(), None);
        }
        self.messages
    }
}

/// The change a unified diff records, as the lines of its hunks before and after (a record
/// that keeps no whole files); `added`: the text is the new file's whole content.
pub fn from_unified(path: &str, diff: &str, added: bool) -> FileDiff {
    let (mut before, mut after) = (String::new(), String::new());
    for line in diff.lines() {
        match line.split_at_checked(1) {
            _ if added => after.push_str(&format!("{line}\n")),
            Some(("-", rest)) if !rest.starts_with("--") => before.push_str(&format!("{rest}\n")),
            Some(("+", rest)) if !rest.starts_with("++") => after.push_str(&format!("{rest}\n")),
            Some((" ", rest)) => {
                before.push_str(&format!("{rest}\n"));
                after.push_str(&format!("{rest}\n"));
            }
            _ => {}
        }
    }
    FileDiff {
        path: PathBuf::from(path),
        old_text: (!added).then_some(before),
        new_text: after,
    }
}
