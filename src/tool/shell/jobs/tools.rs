//! `bash_output` and `bash_kill`: what a background job printed since it was last read, and
//! ending it; plus the words both (and `bash` itself) answer with.

use std::path::Path;
use std::time::Duration;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Job, JobEnd};
use crate::message::Location;
use crate::tool::{Tool, ToolContext, ToolError, ToolKind, ToolOutput, input_schema, parse_input};

pub struct BashOutputTool;
pub struct BashKillTool;

/// `bash_output`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashOutputInput {
    /// The job's id, as `bash` gave it (for example "bg1").
    #[serde(alias = "bash_id", alias = "shell_id")]
    pub id: String,
    /// Keep only the new lines containing this text.
    #[serde(default)]
    pub filter: Option<String>,
}

/// `bash_kill`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashKillInput {
    /// The job's id, as `bash` gave it (for example "bg1").
    #[serde(alias = "bash_id", alias = "shell_id")]
    pub id: String,
}

fn job(ctx: &ToolContext, id: &str) -> Result<std::sync::Arc<Job>, ToolError> {
    ctx.jobs.get(id).ok_or_else(|| {
        let known: Vec<String> = ctx.jobs.all().iter().map(|j| j.id.clone()).collect();
        ToolError::failed(match known.as_slice() {
            [] => format!("There is no background job `{id}`: this session has none."),
            known => format!(
                "There is no background job `{id}`; this session's jobs are {}.",
                known.join(", ")
            ),
        })
    })
}

/// "Job bg1 (`cmd`) is still running" / "has exited with code 0", then its new output.
pub(in crate::tool) fn report(job: &Job, new: &str, dropped: usize) -> String {
    job.mark_told_if_ended();
    let state = match job.end() {
        None => format!("is still running ({}s so far)", job.age_secs()),
        Some(end @ JobEnd::Exited(_)) => format!("has {end}"),
        Some(end @ JobEnd::Killed) => end.to_string(),
    };
    let mut text = format!("Job {} (`{}`) {state}.", job.id, job.command);
    if dropped > 0 {
        text.push_str(&format!(
            "\n({dropped} bytes of output were dropped unread: read more often, or filter.)"
        ));
    }
    if new.is_empty() {
        text.push_str("\n\n(no new output)");
    } else {
        text.push_str("\n\n");
        text.push_str(new);
    }
    text
}

/// A call's answer about `job`: "`what` bg1: cmd" for the editor, the report for the model.
fn answer(job: &Job, what: &str, new: &str, dropped: usize) -> ToolOutput {
    ToolOutput {
        title: format!("{what} {}: {}", job.id, job.command),
        output: report(job, new, dropped),
        metadata: metadata(job),
        ..Default::default()
    }
}

pub(in crate::tool) fn metadata(job: &Job) -> Value {
    let (running, exit_code) = match job.end() {
        None => (true, None),
        Some(JobEnd::Exited(code)) => (false, Some(code)),
        Some(JobEnd::Killed) => (false, None),
    };
    json!({"jobId": job.id, "running": running, "exitCode": exit_code})
}

impl Tool for BashOutputTool {
    fn name(&self) -> &'static str {
        "bash_output"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        "Reads what a background job (started by `bash` with `run_in_background`) printed since \
         you last read it, and whether it still runs or how it ended. `filter` keeps only the \
         lines containing that text."
    }

    fn parameters(&self) -> Value {
        input_schema::<BashOutputInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let id = input.get("id").and_then(Value::as_str).unwrap_or("?");
        (format!("Output of {id}"), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: BashOutputInput = parse_input(self.name(), input)?;
            let job = job(ctx, &input.id)?;
            ctx.started();
            let (mut new, dropped) = job.read_new().await?;
            if let Some(filter) = input.filter.as_deref().filter(|f| !f.is_empty()) {
                new = new
                    .lines()
                    .filter(|line| line.contains(filter))
                    .map(|line| format!("{line}\n"))
                    .collect();
            }
            let mut out = answer(&job, "Output of", &new, dropped);
            out.terminal_id = job.terminal_id().map(str::to_owned);
            Ok(out)
        })
    }
}

impl Tool for BashKillTool {
    fn name(&self) -> &'static str {
        "bash_kill"
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    fn may_change_files(&self) -> bool {
        false
    }

    fn description(&self) -> &'static str {
        "Ends a background job started by `bash` with `run_in_background` (its whole process \
         group), and says what it printed since last read."
    }

    fn parameters(&self) -> Value {
        input_schema::<BashKillInput>()
    }

    fn describe(&self, input: &Value, _cwd: &Path) -> (String, Vec<Location>) {
        let id = input.get("id").and_then(Value::as_str).unwrap_or("?");
        (format!("Kill {id}"), Vec::new())
    }

    fn run<'a>(
        &'a self,
        input: Value,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let input: BashKillInput = parse_input(self.name(), input)?;
            let job = job(ctx, &input.id)?;
            ctx.started();
            if job.end().is_none() {
                job.kill();
                job.wait(Duration::from_secs(2)).await;
            }
            let (new, dropped) = job.read_new().await.unwrap_or_default();
            Ok(answer(&job, "Kill", &new, dropped))
        })
    }
}
