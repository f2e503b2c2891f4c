//! What an agent streams, in the SDK's types, becomes Tandem's events: updates merge onto
//! their call, plans and usage carry over, and a form's fields and answers read both ways.

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Cost, CreateElicitationRequest, Diff, Plan, PlanEntry,
    PlanEntryPriority, PlanEntryStatus, SessionUpdate, Terminal, ToolCall, ToolCallContent,
    ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind, UsageUpdate,
};

use super::*;
use crate::remote::form;

fn through(update: SessionUpdate) -> Option<RemoteEvent> {
    Calls::default().event(update)
}

#[test]
fn chunks_plans_and_usage_read_back() {
    let text = SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::from("hi")));
    assert_eq!(through(text), Some(RemoteEvent::Text("hi".into())));
    let thought = SessionUpdate::AgentThoughtChunk(ContentChunk::new(ContentBlock::from("hm")));
    assert_eq!(through(thought), Some(RemoteEvent::Thought("hm".into())));
    let plan = SessionUpdate::Plan(Plan::new(vec![PlanEntry::new(
        "do it",
        PlanEntryPriority::High,
        PlanEntryStatus::InProgress,
    )]));
    let Some(RemoteEvent::Plan(todos)) = through(plan) else {
        panic!("a plan")
    };
    assert_eq!(todos[0].content, "do it");
    assert_eq!(todos[0].status, crate::todo::TodoStatus::InProgress);
    assert_eq!(todos[0].priority, crate::todo::TodoPriority::High);
    let usage = SessionUpdate::UsageUpdate(UsageUpdate::new(5, 10).cost(Cost::new(0.5, "USD")));
    assert_eq!(
        through(usage),
        Some(RemoteEvent::Usage {
            used: 5,
            size: 10,
            cost: Some(0.5)
        })
    );
}

#[test]
fn a_call_and_its_updates_merge() {
    let mut calls = Calls::default();
    let mut read = |update: SessionUpdate| calls.event(update);
    let call = ToolCall::new("c1", "Edit a.rs")
        .kind(ToolKind::Edit)
        .status(ToolCallStatus::Pending)
        .locations(vec![ToolCallLocation::new("/p/a.rs").line(3)])
        .raw_input(serde_json::json!({"path": "/p/a.rs"}));
    let Some(RemoteEvent::Tool(first)) = read(SessionUpdate::ToolCall(call)) else {
        panic!("a call")
    };
    assert_eq!(first.kind, crate::message::ToolKind::Edit);
    assert_eq!(first.locations[0].line, Some(3));
    let done = ToolCallUpdate::new(
        "c1",
        ToolCallUpdateFields::new()
            .status(ToolCallStatus::Completed)
            .content(vec![
                ToolCallContent::Diff(Diff::new("/p/a.rs", "new").old_text("old".to_owned())),
                ToolCallContent::Terminal(Terminal::new("t1")),
                ContentBlock::from("done").into(),
            ]),
    );
    let Some(RemoteEvent::Tool(last)) = read(SessionUpdate::ToolCallUpdate(done)) else {
        panic!("a call")
    };
    assert_eq!(last.status, CallStatus::Completed);
    assert_eq!(last.title, "Edit a.rs", "kept from the announcement");
    assert_eq!(last.input["path"], "/p/a.rs");
    assert_eq!(last.diffs[0].old_text.as_deref(), Some("old"));
    assert_eq!(last.terminal_id.as_deref(), Some("t1"));
    assert_eq!(last.output, "done");
}

#[test]
fn a_forms_fields_and_answers_read_and_write_back() {
    let params = serde_json::json!({"mode": "form", "message": "m", "sessionId": "s",
                                    "requestedSchema": {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "n": {"type": "integer", "title": "How many"},
            "note": {"type": "string"},
            "ok": {"type": "boolean"}
        }
    }});
    let request: CreateElicitationRequest = serde_json::from_value(params).unwrap();
    let form = form::read(&request).unwrap();
    let field = |name: &str| form.fields.iter().find(|f| f.name == name).unwrap().clone();
    use crate::tool::question::form::{Field, FormReply, value as answer};
    // Through ACP's content type and back, as the agent reads it.
    let value = |field: &Field, chosen: &[String], typed: Option<&str>| {
        let value = answer(field, chosen, typed)?;
        let reply = FormReply::Accept([(field.name.clone(), value)].into_iter().collect());
        let content = form::content(reply).unwrap();
        Some(serde_json::to_value(&content[&field.name]).unwrap())
    };
    let chosen = |labels: &[&str]| labels.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert_eq!(
        value(&field("tags"), &chosen(&["b", "zzz"]), None),
        Some(serde_json::json!(["b"])),
        "values not offered are dropped"
    );
    assert_eq!(field("n").title, "How many");
    assert_eq!(
        value(&field("n"), &[], Some(" 3 ")),
        Some(serde_json::json!(3))
    );
    assert_eq!(value(&field("n"), &[], Some("three")), None);
    assert_eq!(
        value(&field("note"), &[], Some("hi")),
        Some(serde_json::json!("hi"))
    );
    assert_eq!(
        value(&field("ok"), &chosen(&["No"]), None),
        Some(serde_json::json!(false))
    );
    let url = serde_json::json!({"mode": "url", "url": "https://example.com", "message": "m",
                                 "elicitationId": "e1", "sessionId": "s"});
    let url: CreateElicitationRequest = serde_json::from_value(url).unwrap();
    assert!(form::read(&url).is_none(), "a URL request is not a form");
}
