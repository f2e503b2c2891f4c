//! The session lifecycle methods: `session/new`, `session/load` (with replay),
//! `session/resume` (without), `session/list` and `session/close`.

use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    CloseSessionRequest, CloseSessionResponse, ListSessionsRequest, ListSessionsResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse,
    ResumeSessionRequest, ResumeSessionResponse, SessionInfo as AcpSessionInfo,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};

use crate::acp::calls::{client_prompt, mcp_servers, modes};
use crate::acp::updates::{opened, replay};
use crate::acp::{AcpState, error};
use crate::id::{self, SessionId};

/// The longest `session/close` waits for the session's subagents in the background to end
/// after they were told to stop.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn session_id(id: &agent_client_protocol::v1::schema::SessionId) -> SessionId {
    SessionId(id.0.to_string())
}

/// The editor has its answer: the session's MCP servers may start connecting now, so their
/// process start-ups never delay that answer.
fn release_mcp(state: &AcpState, id: &SessionId) {
    if let Ok(manager) = state.manager() {
        manager.release_mcp(id);
    }
}

pub async fn on_new(
    state: Arc<AcpState>,
    request: NewSessionRequest,
    responder: Responder<NewSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let servers = mcp_servers::specs(request.mcp_servers);
    let prompt = match client_prompt::read(request.system_prompt) {
        Ok(prompt) => prompt,
        Err(e) => return responder.respond_with_error(e),
    };
    let result = state.manager().and_then(|manager| {
        let info = manager
            .create(&request.cwd, &request.additional_directories, servers)
            .map_err(error::from_session)?;
        if prompt.is_some() {
            manager
                .set_client_prompt(&info.id, prompt)
                .map_err(error::from_session)?;
        }
        Ok(info)
    });
    let result = result.and_then(|info| {
        let view = state
            .manager()?
            .view(&info.id)
            .map_err(error::from_session)?;
        Ok((info, view))
    });
    match result {
        Ok((info, view)) => {
            state.show(&info.id, &cx);
            responder.respond(
                NewSessionResponse::new(info.id.to_string())
                    .modes(modes::modes(&view, state.air()))
                    .config_options(modes::config_options(&view, state.air())),
            )?;
            release_mcp(&state, &info.id);
            opened::announce(&state, &cx, &info.id, &view, None)
        }
        Err(e) => responder.respond_with_error(e),
    }
}

/// A stored session opened for the editor: its history, what the editor shows of it, and its
/// usage meter.
pub(super) struct Reopened {
    pub messages: Vec<crate::message::Message>,
    pub view: crate::session::SessionView,
    pub usage: Option<crate::session::UsageReport>,
}

/// Opens `id` in exactly the workspace `roots` the editor sent, with its MCP `servers`, and
/// takes the editor's system prompt when it sent one (load, resume and fork alike).
pub(super) fn reopen(
    manager: &crate::session::SessionManager,
    id: &SessionId,
    (roots, prompt): (&[std::path::PathBuf], Option<String>),
    servers: Vec<crate::mcp::McpServerSpec>,
) -> Result<Reopened, Error> {
    let (_, messages) = manager
        .open(id, Some(roots), servers)
        .map_err(error::from_session)?;
    if prompt.is_some() {
        manager
            .set_client_prompt(id, prompt)
            .map_err(error::from_session)?;
    }
    let view = manager.view(id).map_err(error::from_session)?;
    let usage = manager.usage(id, &messages).map_err(error::from_session)?;
    Ok(Reopened {
        messages,
        view,
        usage,
    })
}

pub async fn on_load(
    state: Arc<AcpState>,
    request: LoadSessionRequest,
    responder: Responder<LoadSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = session_id(&request.session_id);
    let servers = mcp_servers::specs(request.mcp_servers);
    let roots = request.additional_directories;
    let prompt = match client_prompt::read(request.system_prompt) {
        Ok(prompt) => prompt,
        Err(e) => return responder.respond_with_error(e),
    };
    cx.clone().spawn(async move {
        let opened = state.manager().and_then(|manager| {
            let opened = reopen(&manager, &id, (&roots, prompt), servers)?;
            let todos = manager.todos(&id).map_err(error::from_session)?;
            Ok((opened, todos))
        });
        match opened {
            Ok((
                Reopened {
                    messages,
                    view,
                    usage,
                },
                todos,
            )) => {
                replay::send_history(&state, &cx, &id, &messages)?;
                replay::send_plan(&state, &cx, &id, &todos)?;
                state.show(&id, &cx);
                responder.respond(
                    LoadSessionResponse::new()
                        .modes(modes::modes(&view, state.air()))
                        .config_options(modes::config_options(&view, state.air())),
                )?;
                release_mcp(&state, &id);
                opened::announce(&state, &cx, &id, &view, usage)
            }
            Err(e) => responder.respond_with_error(e),
        }
    })
}

pub async fn on_resume(
    state: Arc<AcpState>,
    request: ResumeSessionRequest,
    responder: Responder<ResumeSessionResponse>,
    cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = session_id(&request.session_id);
    let servers = mcp_servers::specs(request.mcp_servers);
    let roots = request.additional_directories;
    let prompt = match client_prompt::read(request.system_prompt) {
        Ok(prompt) => prompt,
        Err(e) => return responder.respond_with_error(e),
    };
    let opened = state.manager().and_then(|manager| {
        let opened = reopen(&manager, &id, (&roots, prompt), servers)?;
        let todos = manager.todos(&id).map_err(error::from_session)?;
        Ok((opened, todos))
    });
    match opened {
        Ok((Reopened { view, usage, .. }, todos)) => {
            // Resume replays nothing, and nothing for the session comes before its answer:
            // the current plan, commands and usage follow it.
            state.show(&id, &cx);
            responder.respond(
                ResumeSessionResponse::new()
                    .modes(modes::modes(&view, state.air()))
                    .config_options(modes::config_options(&view, state.air())),
            )?;
            release_mcp(&state, &id);
            replay::send_plan(&state, &cx, &id, &todos)?;
            opened::announce(&state, &cx, &id, &view, usage)
        }
        Err(e) => responder.respond_with_error(e),
    }
}

pub async fn on_list(
    state: Arc<AcpState>,
    request: ListSessionsRequest,
    responder: Responder<ListSessionsResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let page = state.manager().and_then(|manager| {
        manager
            .list(request.cwd.as_deref(), request.cursor.as_deref())
            .map_err(error::from_session)
    });
    match page {
        Ok(page) => {
            // Sessions brought in from another agent say which (`_meta.tandem.importedFrom`).
            let ids: Vec<_> = page.sessions.iter().map(|s| s.id.clone()).collect();
            let origins = state
                .manager()
                .ok()
                .and_then(|m| m.store().imported_from(&ids).ok())
                .unwrap_or_default();
            let sessions = page
                .sessions
                .into_iter()
                .map(|s| {
                    let origin = origins.get(&s.id).map(|agent| {
                        let mut meta = serde_json::Map::new();
                        meta.insert("tandem".into(), serde_json::json!({"importedFrom": agent}));
                        meta
                    });
                    AcpSessionInfo::new(s.id.to_string(), s.cwd)
                        .additional_directories(s.extra_roots)
                        .title(s.title)
                        .updated_at(id::iso8601(s.updated_at))
                        .meta(origin)
                })
                .collect();
            responder.respond(ListSessionsResponse::new(sessions).next_cursor(page.next_cursor))
        }
        Err(e) => responder.respond_with_error(e),
    }
}

pub async fn on_close(
    state: Arc<AcpState>,
    request: CloseSessionRequest,
    responder: Responder<CloseSessionResponse>,
    _cx: ConnectionTo<Client>,
) -> Result<(), Error> {
    let id = session_id(&request.session_id);
    let closed = state
        .manager()
        .and_then(|manager| manager.close(&id).map_err(error::from_session));
    state.hide(&id);
    match closed {
        // Answered once its subagents in the background have ended, in a task of its own:
        // their last requests to the editor must still get through.
        Ok(stopping) => {
            tokio::spawn(async move {
                stopping.ended(CLOSE_WAIT).await;
                let _ = responder.respond(CloseSessionResponse::new());
            });
            Ok(())
        }
        Err(e) => responder.respond_with_error(e),
    }
}
