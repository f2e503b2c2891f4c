//! One step of a turn: a model call streamed into parts of a new assistant message, then the
//! tools it asked for. Every part is stored as it completes and published as it changes.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::actor::SessionState;
use super::setup::TurnSetup;
use super::{SessionError, history};
use crate::bus::Event;
use crate::id::{MessageId, PartId, now_ms};
use crate::message::{
    FinishReason, Message, MessageInfo, Part, PartBody, Role, ToolPart, ToolState, Usage,
};
use crate::provider::{
    AssistantContent, ModelMessage, ModelRequest, ProviderError, ResolvedModel, StreamEvent,
    ToolSpec,
};
use crate::tool::ToolContext;
use crate::tool::{PermissionCheck, ToolOutput, ToolProgress};

/// Told to the model on the last allowed step, with no tools offered.
const MAX_STEPS: &str = "CRITICAL - MAXIMUM STEPS REACHED\n\nThe maximum number of steps \
allowed for this task has been reached. Tools are disabled until next user input. Respond with \
text only.\n\nSummarise the work done so far, list the tasks that remain, and recommend what \
to do next.";

const CANCELLED: &str = "Tool execution was cancelled by the person.";

/// The in-flight assistant message of one step.
struct Step<'a> {
    state: &'a mut SessionState,
    info: MessageInfo,
    parts: Vec<Part>,
    text: Option<(PartId, String)>,
    reasoning: Option<(PartId, String, Option<String>)>,
    /// Tool call id → its parsed input, or why it could not be parsed.
    inputs: HashMap<String, Result<Value, String>>,
}

/// Runs one step and returns how the model finished it.
pub(super) async fn run(
    state: &mut SessionState,
    setup: &TurnSetup,
    last_step: bool,
) -> Result<FinishReason, SessionError> {
    let model = &setup.model;
    let cancel = &setup.cancel;
    let mut messages = history::to_model_messages(&state.messages);
    if last_step {
        messages.push(ModelMessage::Assistant(vec![AssistantContent::Text(
            MAX_STEPS.into(),
        )]));
    }
    let tools: Arc<[ToolSpec]> = if last_step {
        Arc::new([])
    } else {
        setup.tools.clone()
    };
    let offered: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let request = ModelRequest {
        model: model.api_model.clone(),
        system: setup.system.clone(),
        messages,
        tools: tools.clone(),
        max_output_tokens: model.limit.output,
        temperature: state.agent.temperature,
        top_p: state.agent.top_p,
    };
    let mut step = Step::begin(state, model)?;

    let streamed = tokio::select! {
        biased;
        _ = cancel.cancelled() => Ok(None),
        result = stream(&mut step, model, request, cancel) => result.map(Some),
    };
    let outcome = match streamed {
        Ok(Some(outcome)) => outcome,
        Ok(None) => (FinishReason::Cancelled, Usage::default()),
        Err(StepError::Provider(error)) => {
            step.close_open()?;
            step.fail_pending("The model's answer was cut off before this call could run.")?;
            return step.finish(FinishReason::Error, Usage::default(), model, Some(error));
        }
        Err(StepError::Session(error)) => return Err(error),
    };
    let (mut finish, usage) = outcome;
    step.close_open()?;
    if finish == FinishReason::Cancelled {
        step.fail_pending(CANCELLED)?;
    } else if step.has_pending_calls() {
        if step.run_tools(&offered, setup).await? {
            finish = FinishReason::Cancelled;
        } else {
            finish = FinishReason::ToolCalls;
        }
    } else if finish == FinishReason::ToolCalls {
        // Asked for tools but sent none: nothing would change on another step.
        finish = FinishReason::Stop;
    }
    step.finish(finish, usage, model, None)
}

/// A step the person asked for directly (a `subtask` command): no model call, just the
/// `task` call with `input`; the turn goes on so the model can answer with its result.
pub(super) async fn run_subtask(
    state: &mut SessionState,
    setup: &TurnSetup,
    input: Value,
) -> Result<FinishReason, SessionError> {
    let mut step = Step::begin(state, &setup.model)?;
    step.on_tool_call(
        format!("call_{}", crate::id::ulid()),
        "task".into(),
        input.to_string(),
    )?;
    let finish = if step.run_tools(&["task"], setup).await? {
        FinishReason::Cancelled
    } else {
        FinishReason::ToolCalls
    };
    step.finish(finish, Usage::default(), &setup.model, None)
}

enum StepError {
    Provider(ProviderError),
    Session(SessionError),
}

impl From<SessionError> for StepError {
    fn from(error: SessionError) -> Self {
        StepError::Session(error)
    }
}

impl From<crate::store::StoreError> for StepError {
    fn from(error: crate::store::StoreError) -> Self {
        StepError::Session(error.into())
    }
}

/// Streams the model's answer into parts; returns the finish reason and usage.
async fn stream(
    step: &mut Step<'_>,
    model: &ResolvedModel,
    request: ModelRequest,
    cancel: &CancellationToken,
) -> Result<(FinishReason, Usage), StepError> {
    let mut events = model
        .client
        .stream(request)
        .await
        .map_err(StepError::Provider)?;
    let mut usage = Usage::default();
    let mut finish = FinishReason::Stop;
    while let Some(event) = events.next().await {
        if cancel.is_cancelled() {
            return Ok((FinishReason::Cancelled, usage));
        }
        match event.map_err(StepError::Provider)? {
            StreamEvent::TextDelta(delta) => step.on_text(delta)?,
            StreamEvent::ReasoningDelta(delta) => step.on_reasoning(delta)?,
            StreamEvent::ReasoningSignature(signature) => {
                if let Some((_, _, sig)) = &mut step.reasoning {
                    *sig = Some(signature);
                }
            }
            StreamEvent::ToolCallStart { id, name } => step.on_tool_start(id, name)?,
            StreamEvent::ToolCall {
                id,
                name,
                arguments,
            } => step.on_tool_call(id, name, arguments)?,
            StreamEvent::Usage(u) => usage = u,
            StreamEvent::Finish(reason) => finish = reason,
        }
    }
    Ok((finish, usage))
}

impl<'a> Step<'a> {
    /// Starts a new assistant message for this step.
    fn begin(state: &'a mut SessionState, model: &ResolvedModel) -> Result<Self, SessionError> {
        let info = MessageInfo {
            id: MessageId::new(),
            session_id: state.info.id.clone(),
            role: Role::Assistant,
            created_at: now_ms(),
            completed_at: None,
            agent: state.agent.name.clone(),
            model: Some(model.full_id()),
            finish: None,
            usage: None,
            cost: None,
            error: None,
        };
        state.store.put_message(&info)?;
        let mut step = Step {
            state,
            info,
            parts: Vec::new(),
            text: None,
            reasoning: None,
            inputs: HashMap::new(),
        };
        step.save(PartBody::StepStart, None)?;
        Ok(step)
    }

    fn session_id(&self) -> &crate::id::SessionId {
        &self.state.info.id
    }

    /// Stores a part (new or changed) and publishes it.
    fn save(&mut self, body: PartBody, id: Option<PartId>) -> Result<(), SessionError> {
        let part = Part {
            id: id.unwrap_or_default(),
            message_id: self.info.id.clone(),
            session_id: self.session_id().clone(),
            body,
        };
        self.state.store.put_part(&part)?;
        self.remember(part);
        Ok(())
    }

    /// Keeps the latest version of a part in memory and tells subscribers.
    fn remember(&mut self, part: Part) {
        let existing = self.parts.iter().position(|p| p.id == part.id);
        self.state.bus.publish(Event::PartUpdated {
            part: Box::new(part.clone()),
            is_new: existing.is_none(),
        });
        match existing {
            Some(at) => self.parts[at] = part,
            None => self.parts.push(part),
        }
    }

    fn on_text(&mut self, delta: String) -> Result<(), SessionError> {
        if self.reasoning.is_some() {
            self.close_reasoning()?;
        }
        let (part_id, text) = self
            .text
            .get_or_insert_with(|| (PartId::new(), String::new()));
        text.push_str(&delta);
        let event = Event::TextDelta {
            session_id: self.state.info.id.clone(),
            message_id: self.info.id.clone(),
            part_id: part_id.clone(),
            delta,
        };
        self.state.bus.publish(event);
        Ok(())
    }

    fn on_reasoning(&mut self, delta: String) -> Result<(), SessionError> {
        if self.text.is_some() {
            self.close_text()?;
        }
        let (part_id, text, _) = self
            .reasoning
            .get_or_insert_with(|| (PartId::new(), String::new(), None));
        text.push_str(&delta);
        let event = Event::ReasoningDelta {
            session_id: self.state.info.id.clone(),
            message_id: self.info.id.clone(),
            part_id: part_id.clone(),
            delta,
        };
        self.state.bus.publish(event);
        Ok(())
    }

    fn close_text(&mut self) -> Result<(), SessionError> {
        if let Some((id, text)) = self.text.take() {
            let body = PartBody::Text {
                text,
                synthetic: false,
            };
            self.save(body, Some(id))?;
        }
        Ok(())
    }

    fn close_reasoning(&mut self) -> Result<(), SessionError> {
        if let Some((id, text, signature)) = self.reasoning.take() {
            self.save(PartBody::Reasoning { text, signature }, Some(id))?;
        }
        Ok(())
    }

    /// Stores whatever text or reasoning is still streaming.
    fn close_open(&mut self) -> Result<(), SessionError> {
        self.close_reasoning()?;
        self.close_text()
    }

    fn tool_part_id(&self, call_id: &str) -> Option<PartId> {
        self.parts.iter().find_map(|p| match &p.body {
            PartBody::Tool(call) if call.call_id == call_id => Some(p.id.clone()),
            _ => None,
        })
    }

    fn on_tool_start(&mut self, call_id: String, tool: String) -> Result<(), SessionError> {
        self.close_open()?;
        if self.tool_part_id(&call_id).is_some() {
            return Ok(());
        }
        let part = Part {
            id: PartId::new(),
            message_id: self.info.id.clone(),
            session_id: self.session_id().clone(),
            body: PartBody::tool(ToolPart {
                call_id,
                tool,
                state: ToolState::Pending {
                    input: Value::Object(Default::default()),
                },
                title: None,
                locations: Vec::new(),
            }),
        };
        // Not stored yet: the call is incomplete until its arguments have arrived.
        self.remember(part);
        Ok(())
    }

    fn on_tool_call(
        &mut self,
        call_id: String,
        tool: String,
        arguments: String,
    ) -> Result<(), SessionError> {
        self.on_tool_start(call_id.clone(), tool.clone())?;
        let parsed = match serde_json::from_str::<Value>(&arguments) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) if arguments.trim().is_empty() => Ok(Value::Object(Default::default())),
            Ok(other) => Err(format!(
                "The arguments of {tool} must be a JSON object, not {other}. Call it again with an object."
            )),
            Err(e) => Err(format!(
                "The arguments of {tool} are not valid JSON ({e}). Call it again with a valid JSON object."
            )),
        };
        let input = match &parsed {
            Ok(value) => value.clone(),
            Err(_) => Value::String(arguments),
        };
        self.inputs.insert(call_id.clone(), parsed);
        let id = self.tool_part_id(&call_id);
        let (title, locations) = match (self.state.tools.get(&tool), &input) {
            (Some(t), Value::Object(_)) => {
                let (title, locations) = t.describe(&input, &self.state.info.cwd);
                (Some(title).filter(|t| !t.is_empty()), locations)
            }
            _ => (None, Vec::new()),
        };
        let body = PartBody::tool(ToolPart {
            call_id,
            tool,
            state: ToolState::Pending { input },
            title,
            locations,
        });
        self.save(body, id)
    }

    fn pending_calls(&self) -> Vec<(PartId, ToolPart)> {
        self.parts
            .iter()
            .filter_map(|p| match &p.body {
                PartBody::Tool(call) if !call.state.is_finished() => {
                    Some((p.id.clone(), (**call).clone()))
                }
                _ => None,
            })
            .collect()
    }

    fn has_pending_calls(&self) -> bool {
        !self.pending_calls().is_empty()
    }

    /// Marks every unfinished call as failed with `reason`.
    fn fail_pending(&mut self, reason: &str) -> Result<(), SessionError> {
        let now = now_ms();
        for (id, call) in self.pending_calls() {
            let state = ToolState::Error {
                input: call.state.input().clone(),
                error: reason.to_owned(),
                started_at: now,
                ended_at: now,
            };
            self.save(PartBody::tool(ToolPart { state, ..call }), Some(id))?;
        }
        Ok(())
    }

    /// Runs the pending calls: one after another in order, except `task` calls, which run
    /// together at the end. Returns true if the turn was cancelled meanwhile.
    async fn run_tools(
        &mut self,
        offered: &[&str],
        setup: &TurnSetup,
    ) -> Result<bool, SessionError> {
        let cancel = &setup.cancel;
        let (tasks, others): (Vec<_>, Vec<_>) = self
            .pending_calls()
            .into_iter()
            .partition(|(_, call)| call.tool == "task");
        for (id, call) in others {
            if cancel.is_cancelled() {
                break;
            }
            let prepared = self.prepare(id, call, offered, setup)?;
            let result = execute(prepared.job.clone(), cancel).await;
            self.record(prepared, result)?;
        }
        if !cancel.is_cancelled() && !tasks.is_empty() {
            let mut prepared = Vec::new();
            for (id, call) in tasks {
                prepared.push(self.prepare(id, call, offered, setup)?);
            }
            let results =
                futures::future::join_all(prepared.iter().map(|p| execute(p.job.clone(), cancel)))
                    .await;
            for (prepared, result) in prepared.into_iter().zip(results) {
                self.record(prepared, result)?;
            }
        }
        if cancel.is_cancelled() {
            self.fail_pending(CANCELLED)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Checks a call can run and marks it running; the job is what `execute` runs.
    fn prepare(
        &mut self,
        id: PartId,
        call: ToolPart,
        offered: &[&str],
        setup: &TurnSetup,
    ) -> Result<Prepared, SessionError> {
        let started_at = now_ms();
        let input = self
            .inputs
            .remove(&call.call_id)
            .unwrap_or_else(|| Ok(call.state.input().clone()));
        let tool = offered
            .iter()
            .any(|name| *name == call.tool)
            .then(|| self.state.tools.get(&call.tool).cloned())
            .flatten();
        let job = match (tool, input) {
            (_, Err(reason)) => Err(reason),
            (None, _) => Err(format!(
                "There is no tool named `{}` here. Available tools: {}.",
                call.tool,
                if offered.is_empty() {
                    "none".to_owned()
                } else {
                    offered.join(", ")
                }
            )),
            (Some(tool), Ok(input)) => {
                let ctx = self.tool_context(&call, &input, setup);
                let running = ToolState::Running {
                    input: input.clone(),
                    title: call.title.clone(),
                    started_at,
                };
                self.save(
                    PartBody::tool(ToolPart {
                        state: running,
                        ..call.clone()
                    }),
                    Some(id.clone()),
                )?;
                let repeats = self.repeats_itself(&call.tool, &input);
                Ok(Job {
                    tool,
                    input,
                    ctx,
                    repeats,
                })
            }
        };
        Ok(Prepared {
            id,
            call,
            started_at,
            job,
        })
    }

    /// Stores a call's outcome.
    fn record(
        &mut self,
        prepared: Prepared,
        result: Result<(Value, ToolOutput), String>,
    ) -> Result<(), SessionError> {
        let Prepared {
            id,
            mut call,
            started_at,
            ..
        } = prepared;
        let ended_at = now_ms();
        let state = match result {
            Ok((input, out)) => {
                if !out.locations.is_empty() {
                    call.locations = out.locations;
                }
                let mut metadata = match out.metadata {
                    Value::Object(map) => map,
                    Value::Null => Default::default(),
                    other => [("value".to_owned(), other)].into_iter().collect(),
                };
                if !out.attachments.is_empty() {
                    metadata.insert(
                        "attachments".into(),
                        serde_json::to_value(&out.attachments).unwrap_or_default(),
                    );
                }
                if !out.diffs.is_empty() {
                    metadata.insert(
                        "diffs".into(),
                        serde_json::to_value(&out.diffs).unwrap_or_default(),
                    );
                }
                ToolState::Completed {
                    input,
                    output: out.output,
                    title: out.title,
                    metadata: Value::Object(metadata),
                    started_at,
                    ended_at,
                }
            }
            Err(error) => ToolState::Error {
                input: call.state.input().clone(),
                error,
                started_at,
                ended_at,
            },
        };
        self.save(PartBody::tool(ToolPart { state, ..call }), Some(id))
    }

    /// What a call gets to run with; its progress is published as it comes.
    fn tool_context(&self, call: &ToolPart, input: &Value, setup: &TurnSetup) -> ToolContext {
        let bus = self.state.bus.clone();
        let session_id = self.session_id().clone();
        let call_id = call.call_id.clone();
        let progress = move |progress: ToolProgress| {
            let event = match progress {
                ToolProgress::Output(delta) => Event::ToolOutput {
                    session_id: session_id.clone(),
                    call_id: call_id.clone(),
                    delta,
                },
                ToolProgress::Terminal(terminal_id) => Event::ToolTerminal {
                    session_id: session_id.clone(),
                    call_id: call_id.clone(),
                    terminal_id,
                },
            };
            bus.publish(event);
        };
        ToolContext {
            session_id: self.session_id().clone(),
            message_id: self.info.id.clone(),
            call_id: call.call_id.clone(),
            tool: call.tool.clone(),
            input: input.clone(),
            cwd: self.state.info.cwd.clone(),
            cancel: setup.cancel.child_token(),
            client: setup.port.clone(),
            permissions: setup.gate.clone(),
            subagents: setup.delegation.clone(),
            todos: setup.todos.clone(),
            progress: Arc::new(progress),
        }
    }

    /// Whether this call is the third in a row of the same tool with the same input.
    fn repeats_itself(&self, tool: &str, input: &Value) -> bool {
        let earlier = self
            .state
            .messages
            .iter()
            .flat_map(|m| m.parts.iter())
            .chain(self.parts.iter())
            .filter_map(|p| match &p.body {
                PartBody::Tool(call) if call.state.is_finished() => Some(&**call),
                _ => None,
            });
        let last_two: Vec<&ToolPart> = earlier
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .take(2)
            .collect();
        last_two.len() == 2
            && last_two
                .iter()
                .all(|c| c.tool == tool && c.state.input() == input)
    }

    /// Writes the step-finish part and the completed message, publishes usage, and keeps
    /// the message in the session's history. A provider error is returned after saving.
    fn finish(
        mut self,
        reason: FinishReason,
        usage: Usage,
        model: &ResolvedModel,
        error: Option<ProviderError>,
    ) -> Result<FinishReason, SessionError> {
        let cost = model.cost.map(|c| {
            (usage.input as f64 * c.input
                + usage.output as f64 * c.output
                + usage.cache_read as f64 * c.cache_read
                + usage.cache_write as f64 * c.cache_write)
                / 1_000_000.0
        });
        self.save(
            PartBody::StepFinish {
                reason: reason.clone(),
                usage,
                cost,
            },
            None,
        )?;
        self.info.completed_at = Some(now_ms());
        self.info.finish = Some(reason.clone());
        self.info.usage = Some(usage);
        self.info.cost = cost;
        self.info.error = error.as_ref().map(|e| e.to_string());
        self.state.store.put_message(&self.info)?;
        self.state.info.updated_at = self.info.completed_at.unwrap_or_default();
        let message = Message {
            info: self.info,
            parts: self.parts,
        };
        self.state.messages.push(message);
        if error.is_none() && reason != FinishReason::Cancelled {
            let total_cost = session_cost(&self.state.messages);
            self.state.bus.publish(Event::Usage {
                session_id: self.state.info.id.clone(),
                usage,
                context_window: model.limit.context,
                cost: total_cost,
            });
        }
        match error {
            Some(error) => Err(error.into()),
            None => Ok(reason),
        }
    }
}

/// The session's spend so far, if any message had a known price.
pub(super) fn session_cost(messages: &[Message]) -> Option<f64> {
    let costs: Vec<f64> = messages.iter().filter_map(|m| m.info.cost).collect();
    (!costs.is_empty()).then(|| costs.iter().sum())
}

/// A call ready to run.
#[derive(Clone)]
struct Job {
    tool: Arc<dyn crate::tool::Tool>,
    input: Value,
    ctx: ToolContext,
    /// The third identical call in a row: ask about a loop first.
    repeats: bool,
}

struct Prepared {
    id: PartId,
    call: ToolPart,
    started_at: i64,
    job: Result<Job, String>,
}

/// Runs one call; a cancel ends it at once.
async fn execute(
    job: Result<Job, String>,
    cancel: &CancellationToken,
) -> Result<(Value, ToolOutput), String> {
    let job = job?;
    let work = async {
        if job.repeats {
            job.ctx
                .ask(PermissionCheck {
                    permission: "doom_loop".into(),
                    patterns: vec![job.ctx.tool.clone()],
                    always: vec![job.ctx.tool.clone()],
                    title: format!(
                        "{} was called three times in a row with the same input",
                        job.ctx.tool
                    ),
                    ..Default::default()
                })
                .await?;
        }
        job.tool.run(job.input.clone(), &job.ctx).await
    };
    tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(CANCELLED.to_owned()),
        result = work => result.map(|out| (job.input.clone(), out)).map_err(|e| e.0),
    }
}
