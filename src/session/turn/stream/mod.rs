//! The model's stream turned into parts of a new assistant message (the draft): text and
//! reasoning as they stream, tool calls as they arrive (pending, with their title and places),
//! and the finished message with its step-finish part.

mod hosted;
mod tool_calls;

use std::collections::HashMap;
use std::path::Path;

use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::bus::Event;
use crate::id::{PartId, SessionId, now_ms};
use crate::message::{
    FinishReason, Message, MessageInfo, Part, PartBody, ReasoningItem, Role, Source, Usage,
};
use crate::provider::{ModelRequest, ProviderError, ResolvedModel, StreamEvent};
use crate::session::core::writer::PartWriter;
use crate::store::StoreError;
use crate::tool::Registry;

/// How the model's stream ended.
pub(in crate::session) enum Streamed {
    /// The model finished, for `reason`.
    Finished { reason: FinishReason, usage: Usage },
    /// The person cancelled while it streamed.
    Cancelled,
    /// The provider failed; what streamed before is kept.
    Failed(ProviderError),
}

/// A reasoning part still streaming, with what lets its provider accept it back.
struct OpenReasoning {
    id: PartId,
    text: String,
    signature: Option<String>,
    item: Option<ReasoningItem>,
}

impl OpenReasoning {
    fn body(&self) -> PartBody {
        PartBody::Reasoning {
            text: self.text.clone(),
            signature: self.signature.clone(),
            item: self.item.clone(),
        }
    }
}

/// The assistant message one step is writing.
pub(in crate::session) struct Draft {
    pub info: MessageInfo,
    pub parts: Vec<Part>,
    writer: PartWriter,
    text: Option<(PartId, String)>,
    reasoning: Option<OpenReasoning>,
    /// Tool call id → its parsed input, or why it could not be parsed.
    inputs: HashMap<String, Result<Value, String>>,
    /// Calls whose arguments were repaired, and what the model is told of it.
    repairs: HashMap<String, String>,
    /// Bytes of the streaming text or reasoning shown but not yet stored.
    unstored: usize,
    /// Characters the model wrote this step, to estimate usage a server does not report.
    written: usize,
    /// Pages the answer cites (its provider's own search), shown after it.
    citations: Vec<Source>,
}

/// Streamed text is stored while it streams, at least this often (and sooner when
/// `STORE_BYTES` and an eighth of the text are new), so a crash loses at most this much of
/// what the editor was shown.
pub(in crate::session) const STORE_EVERY: std::time::Duration =
    std::time::Duration::from_millis(50);
const STORE_BYTES: usize = 4096;

impl Draft {
    /// Starts a new assistant message (stored, with its step-start part).
    pub fn begin(
        writer: PartWriter,
        session_id: &SessionId,
        agent: &str,
        model: &ResolvedModel,
    ) -> Result<Self, StoreError> {
        Self::begin_as(writer, session_id, agent, model.full_id())
    }

    /// Starts a new assistant message of `agent`, answering as `model` (any name: an
    /// external agent's `acp/name`).
    pub fn begin_as(
        writer: PartWriter,
        session_id: &SessionId,
        agent: &str,
        model: String,
    ) -> Result<Self, StoreError> {
        let mut info = MessageInfo::new(session_id.clone(), Role::Assistant, agent, now_ms());
        info.model = Some(model);
        writer.message(&info)?;
        let mut draft = Draft {
            info,
            parts: Vec::new(),
            writer,
            text: None,
            reasoning: None,
            inputs: HashMap::new(),
            repairs: HashMap::new(),
            unstored: 0,
            written: 0,
            citations: Vec::new(),
        };
        draft.save(PartBody::StepStart { snapshot: None }, None)?;
        Ok(draft)
    }

    /// A part of this message with `body` (a new one, or the part `id` changed).
    pub fn part(&self, body: PartBody, id: Option<PartId>) -> Part {
        Part {
            id: id.unwrap_or_default(),
            message_id: self.info.id.clone(),
            session_id: self.info.session_id.clone(),
            body,
        }
    }

    /// Stores a part (new or changed), keeps its latest version and publishes it.
    pub fn save(&mut self, body: PartBody, id: Option<PartId>) -> Result<(), StoreError> {
        let part = self.part(body, id);
        let is_new = self.keep(part.clone());
        self.writer.save(part, is_new)
    }

    /// Shows `text` to the person as this message's words, live only: the call that asked
    /// it keeps it in its stored result (a question answered in the next prompt).
    pub fn say(&self, text: String) {
        self.writer.publish(crate::bus::Event::TextDelta {
            session_id: self.info.session_id.clone(),
            message_id: self.info.id.clone(),
            part_id: PartId::default(),
            delta: format!("\n\n{text}\n"),
        });
    }

    /// Keeps the latest version of a part; true if it is new.
    fn keep(&mut self, part: Part) -> bool {
        match self.parts.iter().position(|p| p.id == part.id) {
            Some(at) => {
                self.parts[at] = part;
                false
            }
            None => {
                self.parts.push(part);
                true
            }
        }
    }

    pub fn writer(&self) -> &PartWriter {
        &self.writer
    }

    /// Reads the model's stream into parts until it ends, is cancelled, or fails.
    pub async fn stream(
        &mut self,
        model: &ResolvedModel,
        request: ModelRequest,
        cancel: &CancellationToken,
        tools: &Registry,
        cwd: &Path,
    ) -> Result<Streamed, StoreError> {
        // One select for the whole stream (a cancel ends even a silent one at once); inside,
        // each event only checks the flag, which keeps the per-chunk path cheap.
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Ok(Streamed::Cancelled),
            streamed = self.read(model, request, cancel, tools, cwd) => streamed,
        }
    }

    async fn read(
        &mut self,
        model: &ResolvedModel,
        mut request: ModelRequest,
        cancel: &CancellationToken,
        tools: &Registry,
        cwd: &Path,
    ) -> Result<Streamed, StoreError> {
        let estimated_input = crate::provider::estimate_tokens(&request);
        // Each retry before the answer starts becomes a part of it as it happens.
        let (observer, mut waits) = super::retry::watch(request.on_retry.take());
        request.on_retry = Some(observer);
        let start = model.client.stream(request);
        tokio::pin!(start);
        let started = loop {
            tokio::select! {
                biased;
                started = &mut start => break started,
                Some(wait) = waits.recv() => self.save(super::retry::part(wait), None)?,
            }
        };
        while let Ok(wait) = waits.try_recv() {
            self.save(super::retry::part(wait), None)?;
        }
        let mut events = match started {
            Ok(events) => events,
            Err(error) => return Ok(Streamed::Failed(error)),
        };
        let mut usage = Usage::default();
        let mut reason = FinishReason::Stop;
        // Armed when shown text is waiting to be stored; fires STORE_EVERY later.
        let store_timer = tokio::time::sleep(STORE_EVERY);
        tokio::pin!(store_timer);
        let mut armed = false;
        loop {
            let event = tokio::select! {
                biased;
                event = events.next() => event,
                _ = &mut store_timer, if armed => {
                    armed = false;
                    self.store_streaming()?;
                    continue;
                }
            };
            let Some(event) = event else { break };
            if cancel.is_cancelled() {
                return Ok(Streamed::Cancelled);
            }
            match event {
                Err(error) => return Ok(Streamed::Failed(error)),
                Ok(StreamEvent::Usage(u)) => usage = u,
                Ok(StreamEvent::Finish(r)) => reason = r,
                Ok(event) => self.take(event, tools, cwd)?,
            }
            // By size too, but only once the new part is a fair share of the whole (each
            // store copies the whole text: storing every 4 KB of a long answer is quadratic).
            if self.unstored >= STORE_BYTES && self.unstored * 8 >= self.streaming_len() {
                self.store_streaming()?;
            }
            if self.unstored > 0 && !armed {
                store_timer
                    .as_mut()
                    .reset(tokio::time::Instant::now() + STORE_EVERY);
                armed = true;
            } else if self.unstored == 0 {
                armed = false;
            }
        }
        self.close_hosted()?;
        if usage.context_tokens() == 0 {
            // The server said nothing about usage: estimate it rather than report an empty
            // context.
            usage.input = estimated_input;
            usage.output = crate::provider::tokens(self.written);
        }
        Ok(Streamed::Finished { reason, usage })
    }

    /// One streamed event into the draft's parts.
    fn take(&mut self, event: StreamEvent, tools: &Registry, cwd: &Path) -> Result<(), StoreError> {
        match event {
            StreamEvent::TextDelta(delta) => self.on_text(delta),
            StreamEvent::ReasoningDelta(delta) => self.on_reasoning(delta),
            StreamEvent::ReasoningSignature(signature) => {
                if let Some(open) = &mut self.reasoning {
                    open.signature = Some(signature);
                }
                Ok(())
            }
            StreamEvent::ReasoningItem(item) => self.on_reasoning_item(item),
            StreamEvent::ToolCallStart { id, name } => self.on_tool_start(id, name, tools),
            StreamEvent::ToolCall {
                id,
                name,
                arguments,
            } => self.on_tool_call(id, name, arguments, tools, cwd),
            StreamEvent::SearchStarted { id } => self.on_search_started(id),
            StreamEvent::SearchDone {
                id,
                query,
                sources,
                error,
            } => self.on_search_done(id, query, sources, error),
            StreamEvent::Citation(source) => {
                self.on_citation(source);
                Ok(())
            }
            StreamEvent::Usage(_) | StreamEvent::Finish(_) => Ok(()),
        }
    }

    /// Words of the answer, streamed as they come.
    pub fn text(&mut self, delta: String) -> Result<(), StoreError> {
        self.on_text(delta)
    }

    /// Reasoning, streamed as it comes.
    pub fn reasoning(&mut self, delta: String) -> Result<(), StoreError> {
        self.on_reasoning(delta)
    }

    fn on_text(&mut self, delta: String) -> Result<(), StoreError> {
        if self.reasoning.is_some() {
            self.close_reasoning()?;
        }
        let (part_id, text) = self
            .text
            .get_or_insert_with(|| (PartId::new(), String::new()));
        text.push_str(&delta);
        self.unstored += delta.len();
        self.written += delta.len();
        let event = Event::TextDelta {
            session_id: self.info.session_id.clone(),
            message_id: self.info.id.clone(),
            part_id: part_id.clone(),
            delta,
        };
        self.writer.publish(event);
        Ok(())
    }

    /// The reasoning part streaming now: text stops, and a reasoning item already complete is
    /// one part, so more reasoning starts the next.
    fn open_reasoning(&mut self) -> Result<&mut OpenReasoning, StoreError> {
        if self.text.is_some() {
            self.close_text()?;
        }
        if self.reasoning.as_ref().is_some_and(|r| r.item.is_some()) {
            self.close_reasoning()?;
        }
        Ok(self.reasoning.get_or_insert_with(|| OpenReasoning {
            id: PartId::new(),
            text: String::new(),
            signature: None,
            item: None,
        }))
    }

    fn on_reasoning(&mut self, delta: String) -> Result<(), StoreError> {
        let open = self.open_reasoning()?;
        let part_id = open.id.clone();
        open.text.push_str(&delta);
        self.unstored += delta.len();
        self.written += delta.len();
        let event = Event::ReasoningDelta {
            session_id: self.info.session_id.clone(),
            message_id: self.info.id.clone(),
            part_id,
            delta,
        };
        self.writer.publish(event);
        Ok(())
    }

    /// A Responses reasoning item is complete: it closes the reasoning part it summarised (one
    /// of its own when it had no summary).
    fn on_reasoning_item(&mut self, item: ReasoningItem) -> Result<(), StoreError> {
        self.open_reasoning()?.item = Some(item);
        self.close_reasoning()
    }

    /// Bytes of the text and reasoning still streaming.
    fn streaming_len(&self) -> usize {
        self.text.as_ref().map_or(0, |(_, t)| t.len())
            + self.reasoning.as_ref().map_or(0, |r| r.text.len())
    }

    /// Stores what streamed since the last store, if anything did (see `store_streaming`).
    pub fn keep_streaming(&mut self) -> Result<(), StoreError> {
        if self.unstored == 0 {
            return Ok(());
        }
        self.store_streaming()
    }

    /// Stores the text and reasoning still streaming as they stand, without telling anyone
    /// (they have seen every delta): what a crash would otherwise lose.
    fn store_streaming(&mut self) -> Result<(), StoreError> {
        self.unstored = 0;
        let mut parts = Vec::new();
        if let Some(open) = &self.reasoning {
            parts.push(self.part(open.body(), Some(open.id.clone())));
        }
        if let Some((id, text)) = &self.text {
            let body = PartBody::Text {
                text: text.clone(),
                synthetic: false,
            };
            parts.push(self.part(body, Some(id.clone())));
        }
        for part in parts {
            self.writer.store_only(&part)?;
        }
        Ok(())
    }

    fn close_text(&mut self) -> Result<(), StoreError> {
        if let Some((id, text)) = self.text.take() {
            self.unstored = 0;
            let body = PartBody::Text {
                text,
                synthetic: false,
            };
            self.save(body, Some(id))?;
        }
        Ok(())
    }

    fn close_reasoning(&mut self) -> Result<(), StoreError> {
        if let Some(open) = self.reasoning.take() {
            self.unstored = 0;
            self.save(open.body(), Some(open.id))?;
        }
        Ok(())
    }

    /// Stores whatever text or reasoning is still streaming.
    pub fn close_open(&mut self) -> Result<(), StoreError> {
        self.close_reasoning()?;
        self.close_text()
    }

    /// Completes the message: its step-finish part (with usage and cost) and its header.
    pub fn finish(
        self,
        reason: FinishReason,
        usage: Usage,
        cost: Option<f64>,
        error: Option<&ProviderError>,
    ) -> Result<Message, StoreError> {
        self.finish_with(reason, usage, cost, error.map(|e| e.to_string()))
    }

    /// As `finish`, with the error (if any) in words.
    pub fn finish_with(
        mut self,
        reason: FinishReason,
        usage: Usage,
        cost: Option<f64>,
        error: Option<String>,
    ) -> Result<Message, StoreError> {
        self.save(
            PartBody::StepFinish {
                reason: reason.clone(),
                usage,
                cost,
            },
            None,
        )?;
        self.info.completed_at = Some(now_ms());
        self.info.finish = Some(reason);
        self.info.usage = Some(usage);
        self.info.cost = cost;
        self.info.error = error;
        self.writer.message(&self.info)?;
        Ok(Message {
            info: self.info,
            parts: self.parts,
        })
    }
}
