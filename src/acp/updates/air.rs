//! JetBrains Air's bundle (`_meta.jetbrains.air`, version 1), sent only to a client that
//! declared it in `initialize`: the capabilities Tandem answers, a kind on each mode and
//! approval level, a report of the files a turn changed when the prompt asks for one, and a
//! record of a turn that failed; and the shared `quota` key with the provider's rate limits.

use agent_client_protocol::v1::schema::{
    ClientCapabilities, SessionInfoUpdate, SessionNotification, SessionUpdate,
};
use serde_json::{Map, Value, json};

/// What Tandem does of the bundle.
pub const CAPABILITIES: [&str; 3] = ["modeKinds", "agentFileChangeReport", "sessionFailure"];

/// Whether `client` declared the bundle (version 1).
pub fn declared(client: &ClientCapabilities) -> bool {
    client
        .meta
        .as_ref()
        .is_some_and(|meta| meta["jetbrains"]["air"]["version"] == 1)
}

/// `{"jetbrains": {"air": {"version": 1, …fields}}}`.
fn bundle(fields: Value) -> Map<String, Value> {
    let mut air = json!({"version": 1});
    if let (Some(air), Some(fields)) = (air.as_object_mut(), fields.as_object()) {
        air.extend(fields.clone());
    }
    let mut meta = Map::new();
    meta.insert("jetbrains".into(), json!({"air": air}));
    meta
}

/// The `initialize` answer's part: the capabilities Tandem answers.
pub fn initialize() -> Map<String, Value> {
    bundle(json!({"capabilities": CAPABILITIES}))
}

/// The kind Air gives a mode (a primary agent) or an approval level.
pub fn kind(mode_or_level: &str) -> Map<String, Value> {
    let kind = match mode_or_level {
        "plan" | "read-only" => "plan",
        "accept-edits" => "auto_review",
        "full-access" => "full_access",
        _ => "standard",
    };
    bundle(json!({"kind": kind}))
}

/// The `requestId` of a prompt's `agentFileChangeReportRequest`, if it asks for a report.
pub fn report_requested(prompt_meta: Option<&Map<String, Value>>) -> Option<String> {
    let request = &prompt_meta?.get("jetbrains")?["air"]["agentFileChangeReportRequest"];
    request["requestId"].as_str().map(str::to_owned)
}

/// The files the turn changed (absolute paths), or why they are not known.
pub fn file_change_report(
    session: &str,
    request_id: &str,
    paths: Result<Vec<String>, &str>,
) -> SessionNotification {
    let report = match paths {
        Ok(paths) => json!({"version": 1, "requestId": request_id, "status": "reported",
                            "paths": paths, "declaredComplete": true, "truncated": false}),
        Err(reason) => json!({"version": 1, "requestId": request_id, "status": "unavailable",
                              "paths": [], "declaredComplete": false, "truncated": false,
                              "reason": reason}),
    };
    info_update(session, bundle(json!({"agentFileChangeReport": report})))
}

/// `PromptResponse._meta.quota` (a key the first-party adapters share, Air or not): the
/// limits the provider reported with its last answer, each with how much is used and when it
/// resets; None when it reported none.
pub fn quota(windows: &[crate::provider::RateWindow]) -> Option<Map<String, Value>> {
    if windows.is_empty() {
        return None;
    }
    let limits: Vec<Value> = windows
        .iter()
        .map(|w| {
            json!({"limitId": w.id, "limitName": w.id,
                   "primary": {"usedPercent": w.used_percent(), "resetsAt": w.resets_at}})
        })
        .collect();
    let mut meta = Map::new();
    meta.insert("quota".into(), json!({"rateLimits": limits}));
    Some(meta)
}

/// A turn that failed, as Air records it: its words, and what the person can do.
pub fn session_failure(session: &str, failure_id: &str, message: &str) -> SessionNotification {
    let lower = message.to_lowercase();
    let category = if lower.contains("rate limit") || lower.contains("context window") {
        "limit"
    } else if lower.contains("connect") || lower.contains("timed out") {
        "connection"
    } else if lower.contains("invalid") || lower.contains("not found") {
        "request"
    } else if lower.contains("provider") || lower.contains("server") {
        "service"
    } else {
        "unknown"
    };
    let title = message.lines().next().unwrap_or(message);
    let failure = json!({"id": failure_id, "revision": 1, "category": category,
                         "severity": "error", "title": title, "details": message,
                         "actions": ["retry", "new_session"]});
    info_update(session, bundle(json!({"sessionFailure": failure})))
}

fn info_update(session: &str, meta: Map<String, Value>) -> SessionNotification {
    SessionNotification::new(
        session.to_owned(),
        SessionUpdate::SessionInfoUpdate(SessionInfoUpdate::new().meta(meta)),
    )
}
