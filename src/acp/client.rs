//! The ACP side of the client port: permission prompts as `session/request_permission`,
//! file access through `fs/*` when the editor offers it. Called only from spawned tasks.

use std::path::Path;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, CreateTerminalRequest, Diff, KillTerminalRequest, PermissionOption,
    PermissionOptionKind, ReadTextFileRequest, ReleaseTerminalRequest, RequestPermissionOutcome,
    RequestPermissionRequest, TerminalExitStatus, TerminalOutputRequest, ToolCallContent,
    ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
    WaitForTerminalExitRequest, WriteTextFileRequest,
};
use futures::future::BoxFuture;

use super::translate::tool_kind;
use crate::id::SessionId;
use crate::tool::context::{
    ClientPort, PermissionDecision, PermissionRequest, PortError, TerminalExit, TerminalOutput,
    TerminalPort,
};

pub struct AcpPort {
    cx: ConnectionTo<Client>,
    capabilities: ClientCapabilities,
}

impl AcpPort {
    pub fn new(cx: ConnectionTo<Client>, capabilities: ClientCapabilities) -> Self {
        Self { cx, capabilities }
    }
}

const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT_ONCE: &str = "reject_once";
const REJECT_ALWAYS: &str = "reject_always";

fn options() -> Vec<PermissionOption> {
    vec![
        PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
        PermissionOption::new(
            ALLOW_ALWAYS,
            "Always allow",
            PermissionOptionKind::AllowAlways,
        ),
        PermissionOption::new(REJECT_ONCE, "Reject", PermissionOptionKind::RejectOnce),
        PermissionOption::new(
            REJECT_ALWAYS,
            "Always reject",
            PermissionOptionKind::RejectAlways,
        ),
    ]
}

fn permission_request(request: PermissionRequest) -> RequestPermissionRequest {
    let locations: Vec<ToolCallLocation> = request
        .locations
        .into_iter()
        .map(|l| ToolCallLocation::new(l.path).line(l.line))
        .collect();
    let mut fields = ToolCallUpdateFields::new()
        .title(request.title)
        .kind(tool_kind(&request.tool))
        .status(ToolCallStatus::Pending)
        .raw_input(request.input)
        .locations(locations);
    if !request.diffs.is_empty() {
        let diffs: Vec<ToolCallContent> = request
            .diffs
            .into_iter()
            .map(|d| ToolCallContent::from(Diff::new(d.path, d.new_text).old_text(d.old_text)))
            .collect();
        fields = fields.content(diffs);
    }
    RequestPermissionRequest::new(
        request.session_id.to_string(),
        ToolCallUpdate::new(request.call_id, fields),
        options(),
    )
}

impl ClientPort for AcpPort {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        let request = permission_request(request);
        Box::pin(async move {
            match self.cx.send_request(request).block_task().await {
                Ok(response) => match response.outcome {
                    RequestPermissionOutcome::Selected(selected) => match &*selected.option_id.0 {
                        ALLOW_ONCE => PermissionDecision::AllowOnce,
                        ALLOW_ALWAYS => PermissionDecision::AllowAlways,
                        REJECT_ALWAYS => PermissionDecision::RejectAlways,
                        _ => PermissionDecision::RejectOnce,
                    },
                    _ => PermissionDecision::Cancelled,
                },
                Err(error) => {
                    tracing::warn!(%error, "the editor could not ask for permission; treating it as rejected");
                    PermissionDecision::Cancelled
                }
            }
        })
    }

    fn can_read_files(&self) -> bool {
        self.capabilities.fs.read_text_file
    }

    fn knows_subagents(&self) -> bool {
        self.capabilities.subagents.is_some()
    }

    fn can_write_files(&self) -> bool {
        self.capabilities.fs.write_text_file
    }

    fn read_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<String, PortError>> {
        Box::pin(async move {
            if !self.can_read_files() {
                return tokio::fs::read_to_string(path)
                    .await
                    .map_err(|e| PortError(format!("cannot read {}: {e}", path.display())));
            }
            let request = ReadTextFileRequest::new(session_id.to_string(), path);
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|response| response.content)
                .map_err(|e| {
                    PortError(format!("the editor could not read {}: {e}", path.display()))
                })
        })
    }

    fn write_text_file<'a>(
        &'a self,
        session_id: &'a SessionId,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        Box::pin(async move {
            if !self.can_write_files() {
                return tokio::fs::write(path, content)
                    .await
                    .map_err(|e| PortError(format!("cannot write {}: {e}", path.display())));
            }
            let request = WriteTextFileRequest::new(session_id.to_string(), path, content);
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(|e| {
                    PortError(format!(
                        "the editor could not write {}: {e}",
                        path.display()
                    ))
                })
        })
    }
}

fn port_error(what: &str) -> impl Fn(agent_client_protocol::Error) -> PortError + '_ {
    move |e| PortError(format!("the editor's terminal failed to {what}: {e}"))
}

fn exit_status(status: TerminalExitStatus) -> TerminalExit {
    TerminalExit {
        code: status.exit_code.map(|c| c as i32),
        signal: status.signal,
    }
}

impl TerminalPort for AcpPort {
    fn can_run_terminals(&self) -> bool {
        self.capabilities.terminal
    }

    fn create_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        command: &'a str,
        args: Vec<String>,
        cwd: &'a Path,
        output_limit: u64,
    ) -> BoxFuture<'a, Result<String, PortError>> {
        let request = CreateTerminalRequest::new(session_id.to_string(), command)
            .args(args)
            .cwd(cwd.to_owned())
            .output_byte_limit(output_limit);
        Box::pin(async move {
            let response = self
                .cx
                .send_request(request)
                .block_task()
                .await
                .map_err(port_error("start"))?;
            Ok(response.terminal_id.0.to_string())
        })
    }

    fn terminal_output<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalOutput, PortError>> {
        let request = TerminalOutputRequest::new(session_id.to_string(), id.to_owned());
        Box::pin(async move {
            let response = self
                .cx
                .send_request(request)
                .block_task()
                .await
                .map_err(port_error("report output"))?;
            Ok(TerminalOutput {
                output: response.output,
                truncated: response.truncated,
                exit: response.exit_status.map(exit_status),
            })
        })
    }

    fn wait_for_terminal_exit<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<TerminalExit, PortError>> {
        let request = WaitForTerminalExitRequest::new(session_id.to_string(), id.to_owned());
        Box::pin(async move {
            let response = self
                .cx
                .send_request(request)
                .block_task()
                .await
                .map_err(port_error("wait"))?;
            Ok(exit_status(response.exit_status))
        })
    }

    fn kill_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        let request = KillTerminalRequest::new(session_id.to_string(), id.to_owned());
        Box::pin(async move {
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(port_error("kill"))
        })
    }

    fn release_terminal<'a>(
        &'a self,
        session_id: &'a SessionId,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), PortError>> {
        let request = ReleaseTerminalRequest::new(session_id.to_string(), id.to_owned());
        Box::pin(async move {
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(port_error("release"))
        })
    }
}
