//! The draft's tool calls: each shown pending as soon as the model names it (with its title
//! and places), its input parsed when complete, those that never ran failed with a reason; and
//! the snapshot marks around the calls.

use std::path::Path;

use serde_json::Value;

use super::Draft;
use crate::id::{PartId, now_ms};
use crate::message::{PartBody, ToolPart, ToolState};
use crate::session::undo::snapshots::StepPatch;
use crate::store::StoreError;
use crate::tool::{Registry, ToolError};

impl Draft {
    pub(super) fn tool_part_id(&self, call_id: &str) -> Option<PartId> {
        self.parts.iter().find_map(|p| match &p.body {
            PartBody::Tool(call) if call.call_id == call_id => Some(p.id.clone()),
            _ => None,
        })
    }

    pub(super) fn on_tool_start(
        &mut self,
        call_id: String,
        tool: String,
        tools: &Registry,
    ) -> Result<(), StoreError> {
        self.close_open()?;
        if self.tool_part_id(&call_id).is_some() {
            return Ok(());
        }
        let tool = tools.resolve(&tool);
        let kind = tools.kind_of(&tool);
        let part = self.part(
            PartBody::tool(ToolPart {
                call_id,
                tool,
                kind,
                state: ToolState::Pending {
                    input: Value::Object(Default::default()),
                },
                title: None,
                locations: Vec::new(),
                pruned_at: None,
                hosted: false,
            }),
            None,
        );
        // Shown but not stored yet: the call is incomplete until its arguments have arrived.
        self.keep(part.clone());
        self.writer.show(part, true);
        Ok(())
    }

    /// A complete call from the model: its input parsed (or why it cannot be), its title and
    /// places from the tool, stored pending.
    pub fn on_tool_call(
        &mut self,
        call_id: String,
        tool: String,
        arguments: String,
        tools: &Registry,
        cwd: &Path,
    ) -> Result<(), StoreError> {
        let tool = tools.resolve(&tool);
        self.on_tool_start(call_id.clone(), tool.clone(), tools)?;
        self.written += arguments.len();
        let parsed = match serde_json::from_str::<Value>(&arguments) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) if arguments.trim().is_empty() => Ok(Value::Object(Default::default())),
            Ok(Value::String(inner)) if inner.trim_start().starts_with('{') => {
                serde_json::from_str::<Value>(&inner)
                    .ok()
                    .filter(Value::is_object)
                    .ok_or_else(|| format!("The arguments of {tool} must be a JSON object, not a string. Call it again with an object."))
            }
            Ok(other) => Err(format!(
                "The arguments of {tool} must be a JSON object, not {other}. Call it again with an object."
            )),
            Err(e) => match crate::tool::repair_json(&arguments) {
                Some((value, repaired)) => {
                    self.repairs.insert(
                        call_id.clone(),
                        format!("(Your arguments were not valid JSON ({e}); {repaired}, and the call ran with the result. Send valid JSON next time.)"),
                    );
                    Ok(value)
                }
                None => Err(format!(
                    "The arguments of {tool} are not valid JSON ({e}). Call it again with a valid JSON object."
                )),
            },
        };
        let input = match &parsed {
            Ok(value) => value.clone(),
            Err(_) => Value::String(arguments),
        };
        self.inputs.insert(call_id.clone(), parsed);
        let id = self.tool_part_id(&call_id);
        let (title, locations) = match (tools.get(&tool), &input) {
            (Some(t), Value::Object(_)) => {
                let (title, locations) = t.describe(&input, cwd);
                (Some(title).filter(|t| !t.is_empty()), locations)
            }
            _ => (None, Vec::new()),
        };
        let body = PartBody::tool(ToolPart {
            call_id,
            kind: tools.kind_of(&tool),
            tool,
            state: ToolState::Pending { input },
            title,
            locations,
            pruned_at: None,
            hosted: false,
        });
        self.save(body, id)
    }

    /// The calls not yet finished that Tandem runs (not the provider's own), in order, with
    /// their part ids.
    pub fn pending_calls(&self) -> Vec<(PartId, ToolPart)> {
        self.parts
            .iter()
            .filter_map(|p| match &p.body {
                PartBody::Tool(call) if !call.state.is_finished() && !call.hosted => {
                    Some((p.id.clone(), (**call).clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// What the model is told of a repair made to the call's arguments, once.
    pub fn take_repair(&mut self, call_id: &str) -> Option<String> {
        self.repairs.remove(call_id)
    }

    /// The input a call was parsed into when it arrived (or why it could not be).
    pub fn take_input(&mut self, call: &ToolPart) -> Result<Value, String> {
        self.inputs
            .remove(&call.call_id)
            .unwrap_or_else(|| Ok(call.state.input().clone()))
    }

    /// Records on the step-start part the snapshot taken before the step's calls.
    pub fn mark_snapshot(&mut self, tree: &str) -> Result<(), StoreError> {
        let start = self
            .parts
            .iter()
            .find(|p| matches!(p.body, PartBody::StepStart { .. }))
            .map(|p| p.id.clone());
        let body = PartBody::StepStart {
            snapshot: Some(tree.to_owned()),
        };
        self.save(body, start)
    }

    /// Keeps what the step's calls changed: a patch part, and the totals on the message.
    pub fn add_patch(&mut self, patch: StepPatch) -> Result<(), StoreError> {
        self.info.diff = Some(patch.changed.summary);
        self.save(
            PartBody::Patch {
                snapshot: patch.before,
                files: patch.changed.paths,
            },
            None,
        )
    }

    /// Marks every unfinished call as failed with `error`.
    pub fn fail_pending(&mut self, error: &ToolError) -> Result<(), StoreError> {
        let now = now_ms();
        for (id, call) in self.pending_calls() {
            let state = ToolState::Error {
                input: call.state.input().clone(),
                error: error.to_string(),
                shown: error.for_person(),
                started_at: now,
                ended_at: now,
            };
            self.save(PartBody::tool(ToolPart { state, ..call }), Some(id))?;
        }
        self.fail_hosted(&error.to_string())
    }
}
