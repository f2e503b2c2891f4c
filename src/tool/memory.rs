//! `memory`: the agent keeps (or drops) a short note worth knowing in later sessions, in the
//! project's memory or the person's. Each change is asked under the `memory` key with its diff,
//! a note that looks like a secret is refused, and the call keeps the file before and after so
//! `/undo` can put it back.

use std::path::Path;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    Need, PermissionCheck, Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema,
    parse_input,
};
use crate::memory::{self, Scope};
use crate::message::{FileDiff, Location};
use crate::permission::keys;

/// The longest note kept, in characters.
const MAX_NOTE: usize = 500;

pub struct MemoryTool;

/// What to do with a note.
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Keep a new note.
    Add,
    /// Drop the notes whose text contains `note`.
    Remove,
}

/// `memory`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryInput {
    pub action: Action,
    /// `project` (default: how to build and test here, its conventions) or `person` (the
    /// person's stated preferences, in every project).
    #[serde(default)]
    pub scope: Scope,
    /// The note (one or two sentences), or for `remove` words of the note to drop.
    pub note: String,
    /// Why it is worth keeping (for `add`): what showed it.
    #[serde(default)]
    pub reason: Option<String>,
}

impl Tool for MemoryTool {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        "Keeps a short note worth knowing in later sessions: how to build, test or run the \
         project, a convention it follows, or a preference the person stated. Notes are read \
         at the start of every later session. Keep one fact per note, only what you verified or \
         the person said, never secrets or keys; `remove` drops a note that is wrong or stale."
    }

    fn parameters(&self) -> Value {
        input_schema::<MemoryInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let note = input["note"].as_str().unwrap_or_default();
        let verb = match input["action"].as_str() {
            Some("remove") => "Forget",
            _ => "Remember",
        };
        (format!("{verb}: {note}"), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: MemoryInput = parse_input(self.name(), input)?;
            let note = input.note.trim();
            if note.is_empty() {
                return Err(ToolError::failed("The note is empty."));
            }
            let path = memory::file(input.scope, &ctx.cwd);
            let before = memory::read(&path);
            let after = match input.action {
                Action::Add => {
                    if note.chars().count() > MAX_NOTE {
                        return Err(ToolError::failed(format!(
                            "The note is longer than {MAX_NOTE} characters: keep one short fact."
                        )));
                    }
                    let reason = input.reason.as_deref().unwrap_or("").trim();
                    if let Some(what) = memory::secrets::secret_in(&format!("{note} {reason}")) {
                        return Err(ToolError::failed(format!(
                            "Not kept: the note looks like it holds {what}. Memory never keeps \
                             secrets; keep where to find it instead (an environment variable's \
                             name, a file's path)."
                        )));
                    }
                    let date = &crate::id::iso8601(crate::id::now_ms())[..10];
                    let origin = match reason {
                        "" => format!("session {}, {date}", ctx.session_id),
                        reason => format!("session {}, {date}: {reason}", ctx.session_id),
                    };
                    memory::with_note(&before, input.scope, &ctx.cwd, note, &origin)
                }
                Action::Remove => memory::without_note(&before, note).ok_or_else(|| {
                    ToolError::failed(format!("No note in that memory contains \"{note}\"."))
                })?,
            };
            let diff = FileDiff {
                path: path.clone(),
                old_text: (!before.is_empty()).then(|| before.clone()),
                new_text: after.clone(),
            };
            let verb = match input.action {
                Action::Add => "Remember",
                Action::Remove => "Forget",
            };
            let scope = match input.scope {
                Scope::Project => "project",
                Scope::Person => "person",
            };
            ctx.ask(PermissionCheck {
                needs: vec![Need::new(keys::MEMORY, vec![scope.to_owned()])],
                title: format!("{verb} ({scope}): {note}"),
                locations: vec![Location::file(path.clone())],
                diffs: vec![diff.clone()],
            })
            .await?;
            ctx.started();
            crate::secret::write_private(&path, after.as_bytes())
                .map_err(|e| ToolError::failed(format!("The memory was not written: {e:#}")))?;
            Ok(ToolOutput {
                title: format!("{verb}: {note}"),
                output: format!(
                    "{} the {scope}'s memory ({}). Later sessions read it.",
                    match input.action {
                        Action::Add => "Kept in",
                        Action::Remove => "Dropped from",
                    },
                    path.display()
                ),
                metadata: json!({"memoryFile": path, "before": before, "after": after}),
                diffs: vec![diff],
                ..Default::default()
            })
        })
    }
}
