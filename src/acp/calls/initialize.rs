//! `initialize`: protocol v1 and only the capabilities that really work. Opens nothing, so
//! the editor gets its answer as fast as the process can start.

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentAuthCapabilities, AgentCapabilities, Implementation, InitializeRequest,
    InitializeResponse, LogoutCapabilities, McpCapabilities, PromptCapabilities,
    SessionAdditionalDirectoriesCapabilities, SessionCapabilities, SessionCloseCapabilities,
    SessionDeleteCapabilities, SessionForkCapabilities, SessionListCapabilities,
    SessionResumeCapabilities, SessionStatusCapabilities, SessionSystemPromptCapabilities,
    SessionTitleCapabilities,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::AcpState;

pub async fn on_initialize(
    state: Arc<AcpState>,
    request: InitializeRequest,
    responder: Responder<InitializeResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    if request.client_capabilities.subagents.is_some() {
        state.router.follow_children_natively();
    }
    if request
        .client_capabilities
        .session
        .as_ref()
        .is_some_and(|s| s.compaction.is_some())
    {
        state.router.show_compactions_natively();
    }
    if request
        .client_capabilities
        .session
        .as_ref()
        .is_some_and(|s| s.notices.is_some())
    {
        state.router.show_notices();
    }
    let auth_methods = crate::acp::calls::auth::methods(&request.client_capabilities);
    let air = crate::acp::updates::air::declared(&request.client_capabilities);
    let _ = state.capabilities.set(request.client_capabilities);
    let capabilities = AgentCapabilities::new()
        .load_session(true)
        .prompt_capabilities(PromptCapabilities::new().image(true).embedded_context(true))
        // stdio is implied; Streamable HTTP is connected too; the old SSE transport is not.
        .mcp_capabilities(McpCapabilities::new().http(true).sse(false))
        .auth(AgentAuthCapabilities::new().logout(LogoutCapabilities::new()))
        .session_capabilities(
            SessionCapabilities::new()
                .list(SessionListCapabilities::new())
                .resume(SessionResumeCapabilities::new())
                .close(SessionCloseCapabilities::new())
                .fork(SessionForkCapabilities::new())
                .delete(SessionDeleteCapabilities::new())
                .status(SessionStatusCapabilities::new())
                .title(SessionTitleCapabilities::new())
                .additional_directories(SessionAdditionalDirectoriesCapabilities::new())
                .system_prompt(SessionSystemPromptCapabilities::new()),
        );
    responder.respond(
        InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(capabilities)
            .auth_methods(auth_methods)
            .agent_info(Implementation::new("tandem", env!("CARGO_PKG_VERSION")).title("Tandem"))
            .meta(extensions(air)),
    )
}

/// The shared extensions Tandem speaks, as the first-party adapters advertise them.
fn extensions(air: bool) -> serde_json::Map<String, serde_json::Value> {
    let mut meta = if air {
        crate::acp::updates::air::initialize()
    } else {
        serde_json::Map::new()
    };
    meta.insert("steering".into(), serde_json::json!({"supported": true}));
    meta.insert(
        "sessionRewind".into(),
        serde_json::json!({"supported": true, "files": true, "dryRun": true}),
    );
    meta
}
