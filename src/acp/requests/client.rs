//! The ACP side of the client port: permission prompts as `session/request_permission`,
//! questions as forms or prompts (`question`),
//! file access through `fs/*` and commands through `terminal/*` when the editor offers them.
//! A child session's requests name the session the editor knows it by (see `route`). Called
//! only from spawned tasks.

use std::path::Path;
use std::sync::Arc;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, CreateTerminalRequest, KillTerminalRequest, PermissionOption,
    PermissionOptionKind, ReadTextFileRequest, ReleaseTerminalRequest, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, TerminalExitStatus, TerminalOutputRequest,
    ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
    WaitForTerminalExitRequest, WriteTextFileRequest,
};
use agent_client_protocol::v1::schema::{
    RequiresActionStateUpdate, RunningStateUpdate, SessionNotification, SessionUpdate, StateUpdate,
    SubagentUpdate,
};
use agent_client_protocol::{Client, UntypedMessage};
use futures::future::BoxFuture;

use crate::acp::updates::route::Router;
use crate::acp::updates::translate::{diff_content, tool_kind};
use crate::id::SessionId;
use crate::tool::question::{LinkReply, LinkRequest, QuestionReply, QuestionRequest};
use crate::tool::{
    ClientPort, FileAction, PermissionDecision, PermissionRequest, PortError, TerminalExit,
    TerminalOutput, TerminalPort,
};

pub struct AcpPort {
    cx: ConnectionTo<Client>,
    capabilities: ClientCapabilities,
    router: Arc<Router>,
    /// Where updates go, in order with the rest.
    outbox: Arc<crate::acp::upstream::Outbox>,
}

impl AcpPort {
    pub fn new(
        cx: ConnectionTo<Client>,
        capabilities: ClientCapabilities,
        router: Arc<Router>,
        outbox: Arc<crate::acp::upstream::Outbox>,
    ) -> Self {
        Self {
            cx,
            capabilities,
            router,
            outbox,
        }
    }

    /// A child shown natively waits on the person (`requires_action`) while it asks, and runs
    /// again once answered; its parent's editor pane says so.
    fn waiting(&self, session: &SessionId, waiting: bool) {
        let Some(parent) = self.router.native_parent(session) else {
            return;
        };
        let state = if waiting {
            StateUpdate::RequiresAction(RequiresActionStateUpdate::new())
        } else {
            StateUpdate::Running(RunningStateUpdate::new())
        };
        let update = SubagentUpdate::new(session.to_string()).state(state);
        let notification =
            SessionNotification::new(parent.to_string(), SessionUpdate::SubagentUpdate(update));
        let _ = self.outbox.send(&self.cx, &notification);
    }

    /// The session id a request about `session` names.
    fn session(&self, session: &SessionId) -> String {
        self.router.editor_session(session).to_string()
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

/// The `session/request_permission` for `request`, as the editor receives it (a new file's
/// diff with `"oldText": null`), naming the call as the editor knows it.
fn permission_request(
    request: PermissionRequest,
    router: &Router,
) -> Result<UntypedMessage, serde_json::Error> {
    let (session, call_id) = router.locate(&request.session_id, &request.call_id);
    let locations: Vec<ToolCallLocation> = request
        .locations
        .into_iter()
        .map(|l| ToolCallLocation::new(l.path).line(l.line))
        .collect();
    let mut fields = ToolCallUpdateFields::new()
        .title(request.title)
        .kind(tool_kind(Some(request.kind)))
        .status(ToolCallStatus::Pending)
        .raw_input(request.input)
        .locations(locations);
    if !request.diffs.is_empty() {
        fields = fields.content(request.diffs.iter().map(diff_content).collect::<Vec<_>>());
    }
    let request = RequestPermissionRequest::new(
        session.to_string(),
        ToolCallUpdate::new(call_id, fields),
        options(),
    );
    let mut params = serde_json::to_value(&request)?;
    crate::acp::upstream::old_text::mark(params.pointer_mut("/toolCall/content"));
    Ok(UntypedMessage {
        method: "session/request_permission".into(),
        params,
    })
}

impl ClientPort for AcpPort {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        let asker = request.session_id.clone();
        let request = permission_request(request, &self.router);
        Box::pin(async move {
            self.waiting(&asker, true);
            let _answered = Answered(self, asker);
            let answer = match request {
                Ok(request) => self.cx.send_request(request).block_task().await,
                Err(error) => Err(agent_client_protocol::Error::into_internal_error(error)),
            }
            .and_then(|value| {
                serde_json::from_value::<RequestPermissionResponse>(value)
                    .map_err(agent_client_protocol::Error::into_internal_error)
            });
            match answer {
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

    fn ask_questions(&self, request: QuestionRequest) -> BoxFuture<'_, QuestionReply> {
        let by_form = self
            .capabilities
            .elicitation
            .as_ref()
            .is_some_and(|e| e.supports_form());
        let asker = request.session_id.clone();
        Box::pin(async move {
            self.waiting(&asker, true);
            let _answered = Answered(self, asker);
            if by_form {
                crate::acp::requests::question::by_form(&self.cx, &self.router, request).await
            } else {
                crate::acp::requests::question::by_permission(&self.cx, &self.router, request).await
            }
        })
    }

    fn shows_links(&self) -> bool {
        self.capabilities
            .elicitation
            .as_ref()
            .is_some_and(|e| e.supports_url())
    }

    fn open_link(&self, request: LinkRequest) -> BoxFuture<'_, LinkReply> {
        Box::pin(crate::acp::requests::question::open_link(&self.cx, request))
    }

    fn can_read_files(&self) -> bool {
        self.capabilities.fs.read_text_file
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
                return Err(PortError::Unsupported("file reading"));
            }
            let request = ReadTextFileRequest::new(self.session(session_id), path);
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|response| response.content)
                .map_err(file_error(FileAction::Read, path))
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
                return Err(PortError::Unsupported("file writing"));
            }
            let request = WriteTextFileRequest::new(self.session(session_id), path, content);
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(file_error(FileAction::Write, path))
        })
    }
}

/// Marks the asking child running again when its question is answered, or dropped.
struct Answered<'a>(&'a AcpPort, SessionId);

impl Drop for Answered<'_> {
    fn drop(&mut self) {
        self.0.waiting(&self.1, false);
    }
}

fn file_error(
    action: FileAction,
    path: &Path,
) -> impl FnOnce(agent_client_protocol::Error) -> PortError + '_ {
    move |e| PortError::File {
        action,
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn port_error(action: &'static str) -> impl Fn(agent_client_protocol::Error) -> PortError {
    move |e| PortError::Terminal {
        action,
        message: e.to_string(),
    }
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
        let request = CreateTerminalRequest::new(self.session(session_id), command)
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
        let request = TerminalOutputRequest::new(self.session(session_id), id.to_owned());
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
        let request = WaitForTerminalExitRequest::new(self.session(session_id), id.to_owned());
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
        let request = KillTerminalRequest::new(self.session(session_id), id.to_owned());
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
        let request = ReleaseTerminalRequest::new(self.session(session_id), id.to_owned());
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
