//! Which events reach the editor, and on which session: the sessions it opened, and the
//! subagent sessions below them. The session layer always speaks of a child's own session and
//! ids; here alone it is decided how the editor sees them: with ACP's subagents capability,
//! announced and under their own ids; without it, on the parent's session with ids prefixed by
//! the child's session and tagged with the `task` call, which shows a live summary of them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};

use agent_client_protocol::v1::schema::{
    IdleStateUpdate, RunningStateUpdate, SessionNotification, SessionUpdate, StateUpdate,
    SubagentUpdate, ToolCallContent, ToolCallId, ToolCallUpdate, ToolCallUpdateFields,
};
use indexmap::IndexMap;
use serde_json::json;

use crate::acp::updates::translate;
use crate::bus::Event;
use crate::id::SessionId;
use crate::message::{PartBody, ToolState};

/// Where a child session's calls are shown.
struct ChildRoute {
    /// The session the editor knows.
    root: SessionId,
    /// The `task` call (as the editor knows it) that started the child.
    parent_call: String,
    /// One line per child tool call, for the `task` call's live summary.
    summary: IndexMap<String, String>,
}

#[derive(Default)]
pub struct Router {
    shown: RwLock<HashSet<SessionId>>,
    children: Mutex<HashMap<SessionId, ChildRoute>>,
    /// The client follows child sessions itself (ACP's subagents capability).
    native: AtomicBool,
    /// `(parent session, task call)` → the child it started, in native mode.
    tasks: Mutex<HashMap<(SessionId, String), SessionId>>,
    /// The client shows compactions itself (ACP's `session.compaction` capability).
    native_compaction: AtomicBool,
    /// The client shows live notices (ACP's `session.notices` capability).
    notices: AtomicBool,
}

impl Router {
    /// Children are announced with `subagent_update` and shown under their own session ids.
    pub fn follow_children_natively(&self) {
        self.native.store(true, Ordering::Relaxed);
    }

    /// Compactions are sent as `compaction_update`s instead of agent messages.
    pub fn show_compactions_natively(&self) {
        self.native_compaction.store(true, Ordering::Relaxed);
    }

    pub fn shows_compactions_natively(&self) -> bool {
        self.native_compaction.load(Ordering::Relaxed)
    }

    /// Retries are sent as `notice`s (live only) instead of lines of the answer.
    pub fn show_notices(&self) {
        self.notices.store(true, Ordering::Relaxed);
    }

    pub fn shows_notices(&self) -> bool {
        self.notices.load(Ordering::Relaxed)
    }

    /// The update `event` becomes on its own session.
    fn translate(&self, event: &Event) -> Option<SessionNotification> {
        match event {
            Event::Compaction {
                session_id,
                compaction_id,
                state,
            } => crate::acp::updates::compaction::update(
                session_id,
                compaction_id,
                state,
                self.shows_compactions_natively(),
            ),
            Event::PartUpdated { part, is_new: true }
                if matches!(part.body, PartBody::Retry { .. }) && self.shows_notices() =>
            {
                translate::retry_notice(&part.body)
                    .map(|update| SessionNotification::new(part.session_id.to_string(), update))
            }
            _ => translate::event_update(event),
        }
    }

    pub fn show(&self, id: &SessionId) {
        self.shown
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone());
    }

    pub fn hide(&self, id: &SessionId) {
        self.shown
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    pub fn is_shown(&self, id: &SessionId) -> bool {
        self.shown
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains(id)
    }

    /// Where the editor knows call `call_id` of `session`: the session a request about it
    /// names, and the call's id there.
    pub fn locate(&self, session: &SessionId, call_id: &str) -> (SessionId, String) {
        match self.parent_view(session) {
            Some(root) => (root, nested_id(session, call_id)),
            None => (session.clone(), call_id.to_owned()),
        }
    }

    /// The parent a child is announced on, when children are shown natively (`subagent_update`).
    pub fn native_parent(&self, child: &SessionId) -> Option<SessionId> {
        if !self.native.load(Ordering::Relaxed) {
            return None;
        }
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|(_, c)| *c == child)
            .map(|((parent, _), _)| parent.clone())
    }

    /// The session the editor knows `session` by, for its file and terminal requests.
    pub fn editor_session(&self, session: &SessionId) -> SessionId {
        self.parent_view(session).unwrap_or_else(|| session.clone())
    }

    /// The session a child is shown on, when it is shown on one of its ancestors.
    fn parent_view(&self, session: &SessionId) -> Option<SessionId> {
        if self.native.load(Ordering::Relaxed) || self.is_shown(session) {
            return None;
        }
        self.children
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(session)
            .map(|route| route.root.clone())
    }

    /// The notifications `event` becomes for this editor (none if it is not its business).
    pub fn route(&self, event: &Event) -> Vec<SessionNotification> {
        if self.native.load(Ordering::Relaxed) {
            return self.route_natively(event);
        }
        if let Event::SubagentStarted {
            parent_session,
            parent_call_id,
            child_session,
            ..
        } = event
        {
            self.adopt(parent_session, parent_call_id, child_session);
        }
        if self.is_shown(event.session_id()) {
            return self.translate(event).into_iter().collect();
        }
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        let Some(route) = children.get_mut(event.session_id()) else {
            return Vec::new();
        };
        let Event::PartUpdated { part, .. } = event else {
            return Vec::new();
        };
        let PartBody::Tool(call) = &part.body else {
            return Vec::new();
        };
        let child = event.session_id();
        let mut out = Vec::new();
        if let Some(mut notification) = translate::event_update(event) {
            tag(&mut notification.update, child, &route.parent_call);
            notification.session_id = route.root.to_string().into();
            out.push(notification);
        }
        // The `task` call's live summary: one line per child call, marked by its state.
        let mark = match call.state {
            ToolState::Pending { .. } => "·",
            ToolState::Running { .. } => "…",
            ToolState::Completed { .. } => "✓",
            ToolState::Error { .. } => "✗",
        };
        let title = call.title.clone().unwrap_or_else(|| call.tool.clone());
        route.summary.insert(
            call.call_id.clone(),
            format!("{mark} {} {title}", call.tool),
        );
        let summary: Vec<&str> = route.summary.values().map(String::as_str).collect();
        out.push(SessionNotification::new(
            route.root.to_string(),
            SessionUpdate::ToolCallUpdate(
                ToolCallUpdate::new(
                    route.parent_call.clone(),
                    ToolCallUpdateFields::new()
                        .content(vec![ToolCallContent::from(summary.join("\n"))]),
                )
                .meta(meta(json!({"childSessionId": child.as_str()}))),
            ),
        ));
        out
    }

    /// ACP's own way: announce each child on its parent before any of its traffic, show its
    /// updates under its own id, and report it idle when its task call ends.
    fn route_natively(&self, event: &Event) -> Vec<SessionNotification> {
        let mut out = Vec::new();
        match event {
            Event::SubagentStarted {
                parent_session,
                parent_call_id,
                child_session,
                agent,
                description,
            } if self.is_shown(parent_session) => {
                self.show(child_session);
                self.tasks.lock().unwrap_or_else(|p| p.into_inner()).insert(
                    (parent_session.clone(), parent_call_id.clone()),
                    child_session.clone(),
                );
                let announce = SubagentUpdate::new(child_session.to_string())
                    .title(description.clone())
                    .description(format!("@{agent} subagent"))
                    .state(StateUpdate::Running(RunningStateUpdate::new()));
                out.push(SessionNotification::new(
                    parent_session.to_string(),
                    SessionUpdate::SubagentUpdate(announce),
                ));
            }
            Event::SubagentEnded {
                parent_session,
                parent_call_id,
                child_session,
            } => {
                let key = (parent_session.clone(), parent_call_id.clone());
                let known = self
                    .tasks
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&key);
                if known.is_some() {
                    let idle = SubagentUpdate::new(child_session.to_string())
                        .state(StateUpdate::Idle(IdleStateUpdate::new()));
                    out.push(SessionNotification::new(
                        parent_session.to_string(),
                        SessionUpdate::SubagentUpdate(idle),
                    ));
                }
            }
            Event::PartUpdated { part, .. } => {
                // The call that started a child has finished: the child is idle, unless it
                // goes on in the background (then it is idle when it ends).
                if let PartBody::Tool(call) = &part.body
                    && call.state.is_finished()
                    && !started_in_background(&call.state)
                {
                    let key = (part.session_id.clone(), call.call_id.clone());
                    let child = self
                        .tasks
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&key);
                    if let Some(child) = child {
                        let idle = SubagentUpdate::new(child.to_string())
                            .state(StateUpdate::Idle(IdleStateUpdate::new()));
                        out.push(SessionNotification::new(
                            part.session_id.to_string(),
                            SessionUpdate::SubagentUpdate(idle),
                        ));
                    }
                }
            }
            _ => {}
        }
        // After any announcement: a child is announced before its task call names it.
        if self.is_shown(event.session_id()) {
            out.extend(self.translate(event));
        }
        out
    }

    /// Follows a child of a shown session (or of one of its children).
    fn adopt(&self, parent: &SessionId, call_id: &str, child: &SessionId) {
        let mut children = self.children.lock().unwrap_or_else(|p| p.into_inner());
        let route = if self.is_shown(parent) {
            Some((parent.clone(), call_id.to_owned()))
        } else {
            children
                .get(parent)
                .map(|r| (r.root.clone(), nested_id(parent, call_id)))
        };
        if let Some((root, parent_call)) = route {
            children.insert(
                child.clone(),
                ChildRoute {
                    root,
                    parent_call,
                    summary: IndexMap::new(),
                },
            );
        }
    }
}

/// Whether a finished `task` call left its child running in the background.
fn started_in_background(state: &ToolState) -> bool {
    matches!(state, ToolState::Completed { metadata, .. } if metadata["background"] == true)
}

/// A child's call as an editor without the subagents capability knows it, on the parent's
/// session: prefixed with the child's session id (call ids are only unique per session).
fn nested_id(child: &SessionId, call_id: &str) -> String {
    format!("{child}/{call_id}")
}

fn meta(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    let mut meta = serde_json::Map::new();
    meta.insert("tandem".into(), value);
    meta
}

/// A child's tool call as the parent session shows it: its id prefixed with the child's
/// session id (ids are only unique per session), tagged with its `task` call and session.
fn tag(update: &mut SessionUpdate, child: &SessionId, parent_call: &str) {
    let tags = meta(json!({"parentToolCallId": parent_call, "childSessionId": child.as_str()}));
    match update {
        SessionUpdate::ToolCall(call) => {
            call.tool_call_id = ToolCallId::new(nested_id(child, &call.tool_call_id.0));
            call.meta = Some(tags);
        }
        SessionUpdate::ToolCallUpdate(call) => {
            call.tool_call_id = ToolCallId::new(nested_id(child, &call.tool_call_id.0));
            call.meta = Some(tags);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::id::{MessageId, PartId};
    use crate::message::{Part, ToolKind, ToolPart};

    fn started(parent: &str, call: &str, child: &str) -> Event {
        Event::SubagentStarted {
            parent_session: SessionId::from(parent),
            parent_call_id: call.into(),
            child_session: SessionId::from(child),
            agent: "general".into(),
            description: "Look".into(),
        }
    }

    fn call(session: &str, id: &str, state: ToolState, is_new: bool) -> Event {
        Event::PartUpdated {
            part: Box::new(Part {
                id: PartId::from(format!("p-{id}").as_str()),
                message_id: MessageId::from("m"),
                session_id: SessionId::from(session),
                body: PartBody::tool(ToolPart {
                    call_id: id.into(),
                    tool: "glob".into(),
                    kind: Some(ToolKind::Search),
                    state,
                    title: Some("*.md".into()),
                    locations: Vec::new(),
                    pruned_at: None,
                    hosted: false,
                }),
            }),
            is_new,
        }
    }

    fn pending() -> ToolState {
        ToolState::Pending { input: json!({}) }
    }

    fn json(notifications: Vec<SessionNotification>) -> Vec<Value> {
        notifications
            .into_iter()
            .map(|n| serde_json::to_value(n).unwrap())
            .collect()
    }

    #[test]
    fn without_the_capability_children_appear_on_the_session_the_editor_knows() {
        let router = Router::default();
        router.show(&SessionId::from("root"));
        assert!(
            router
                .route(&call("elsewhere", "x", pending(), true))
                .is_empty()
        );
        router.route(&started("root", "t1", "child"));
        router.route(&started("child", "t2", "grandchild"));

        let routed = json(router.route(&call("grandchild", "g1", pending(), true)));
        assert_eq!(routed.len(), 2, "the call, and its task's summary");
        assert_eq!(routed[0]["sessionId"], "root");
        assert_eq!(routed[0]["update"]["toolCallId"], "grandchild/g1");
        assert_eq!(
            routed[0]["update"]["_meta"]["tandem"],
            json!({"parentToolCallId": "child/t2", "childSessionId": "grandchild"})
        );
        assert_eq!(routed[1]["update"]["toolCallId"], "child/t2");
        assert_eq!(
            routed[1]["update"]["content"][0]["content"]["text"],
            "· glob *.md"
        );

        // Questions and file requests of a child name the same session and id.
        let (session, id) = router.locate(&SessionId::from("grandchild"), "g1");
        assert_eq!((session.as_str(), id.as_str()), ("root", "grandchild/g1"));
        assert_eq!(
            router.editor_session(&SessionId::from("child")).as_str(),
            "root"
        );
        let (session, id) = router.locate(&SessionId::from("root"), "t1");
        assert_eq!((session.as_str(), id.as_str()), ("root", "t1"));
    }

    #[test]
    fn with_the_capability_children_are_announced_and_keep_their_own_ids() {
        let router = Router::default();
        router.follow_children_natively();
        router.show(&SessionId::from("root"));
        let announced = json(router.route(&started("root", "t1", "child")));
        assert_eq!(announced[0]["sessionId"], "root");
        assert_eq!(announced[0]["update"]["sessionUpdate"], "subagent_update");
        assert_eq!(announced[0]["update"]["sessionId"], "child");

        let routed = json(router.route(&call("child", "c1", pending(), true)));
        assert_eq!(routed.len(), 1);
        assert_eq!(routed[0]["sessionId"], "child");
        assert_eq!(routed[0]["update"]["toolCallId"], "c1");
        let (session, id) = router.locate(&SessionId::from("child"), "c1");
        assert_eq!((session.as_str(), id.as_str()), ("child", "c1"));

        // When the call that started the child finishes, the child is idle.
        let done = ToolState::Error {
            input: json!({}),
            error: "e".into(),
            shown: None,
            started_at: 1,
            ended_at: 2,
        };
        let finished = json(router.route(&call("root", "t1", done, false)));
        assert_eq!(finished[0]["update"]["sessionUpdate"], "subagent_update");
        assert_eq!(finished[0]["update"]["state"]["state"], "idle");
        assert_eq!(finished[1]["update"]["toolCallId"], "t1");
    }
}
