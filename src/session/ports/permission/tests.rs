//! The gate's rules, answers and rejections, with a client that answers as told.
use super::*;
use crate::id::{MessageId, SessionId};
use crate::message::{FileDiff, ToolKind};
use crate::tool::{NoSubagents, Registry, TerminalPort, TodoPort};
use tokio_util::sync::CancellationToken;

/// A client that answers every question with `decision` and keeps the questions; when
/// `cancels` is set, the turn is cancelled while the person answers.
struct Answering {
    decision: PermissionDecision,
    asked: Mutex<Vec<PermissionRequest>>,
    cancels: Mutex<Option<CancellationToken>>,
}

impl TerminalPort for Answering {}

impl ClientPort for Answering {
    fn request_permission(&self, request: PermissionRequest) -> BoxFuture<'_, PermissionDecision> {
        self.asked.lock().unwrap().push(request);
        if let Some(cancel) = self.cancels.lock().unwrap().as_ref() {
            cancel.cancel();
        }
        let decision = self.decision;
        Box::pin(async move { decision })
    }
}

struct NoTodos;

impl TodoPort for NoTodos {
    fn todos(&self, _: &SessionId) -> Result<Vec<crate::todo::Todo>, ToolError> {
        Ok(Vec::new())
    }
    fn set_todos(&self, _: &SessionId, _: Vec<crate::todo::Todo>) -> Result<(), ToolError> {
        Ok(())
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Arc<Store>,
    port: Arc<Answering>,
    gate: Arc<Gate>,
    project: std::path::PathBuf,
}

fn fixture(config: &str, decision: PermissionDecision) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open_in(&dir.path().join("data")).unwrap());
    let project = dir.path().join("project");
    let config = crate::config::Config::from_json_str(config).unwrap();
    let mut rules = crate::permission::defaults();
    if let Some(user) = &config.permission {
        rules.extend(crate::permission::from_config(user));
    }
    let port = Arc::new(Answering {
        decision,
        asked: Mutex::new(Vec::new()),
        cancels: Mutex::new(None),
    });
    let gate = Gate::new(
        Layers::top(rules),
        Vec::new(),
        store.clone(),
        (&project, "s1"),
        port.clone(),
    )
    .unwrap();
    Fixture {
        _dir: dir,
        store,
        port,
        gate: Arc::new(gate),
        project,
    }
}

fn context(fixture: &Fixture, cancel: CancellationToken) -> ToolContext {
    ToolContext {
        session_id: SessionId::from("s1"),
        message_id: MessageId::from("m1"),
        call_id: "c1".into(),
        tool: "edit".into(),
        kind: ToolKind::Edit,
        input: serde_json::json!({"filePath": "a.txt"}),
        cwd: fixture.project.clone(),
        extra_roots: Vec::new().into(),
        cancel,
        client: fixture.port.clone(),
        permissions: fixture.gate.clone(),
        todos: Arc::new(NoTodos),
        subagents: Arc::new(NoSubagents),
        progress: Arc::new(|_| {}),
        sandbox: Arc::new(crate::sandbox::Policy::resolve(None, &fixture.project)),
        files: Default::default(),
        jobs: Default::default(),
        code: std::sync::Arc::new(crate::tool::ports::NoCode),
    }
}

fn edit(path: &str) -> PermissionCheck {
    PermissionCheck {
        diffs: vec![FileDiff {
            path: path.into(),
            old_text: None,
            new_text: "x".into(),
        }],
        ..PermissionCheck::new("edit", vec![path.into()], format!("Edit {path}"))
    }
}

#[tokio::test]
async fn a_deny_rule_refuses_without_asking() {
    let f = fixture(
        r#"{"permission": {"edit": {"*": "ask", "secret/*": "deny"}}}"#,
        PermissionDecision::AllowOnce,
    );
    let ctx = context(&f, CancellationToken::new());
    let error = f.gate.check(&ctx, edit("secret/a.txt")).await.unwrap_err();
    assert!(matches!(error, ToolError::Denied { ref pattern, .. } if pattern == "secret/a.txt"));
    assert!(f.port.asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_ask_carries_the_call_and_always_is_remembered_and_stored() {
    let f = fixture(
        r#"{"permission": {"edit": "ask"}}"#,
        PermissionDecision::AllowAlways,
    );
    let ctx = context(&f, CancellationToken::new());
    f.gate.check(&ctx, edit("a.txt")).await.unwrap();
    f.gate.check(&ctx, edit("b.txt")).await.unwrap();
    let asked = f.port.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "the second edit is covered by `always`");
    assert_eq!(
        (
            asked[0].call_id.as_str(),
            asked[0].kind,
            asked[0].title.as_str()
        ),
        ("c1", ToolKind::Edit, "Edit a.txt")
    );
    assert_eq!(asked[0].diffs.len(), 1);
    let stored = f.store.approvals(&f.project.display().to_string()).unwrap();
    assert_eq!(stored, [Rule::new("edit", "*", Action::Allow)]);
}

#[tokio::test]
async fn a_rejection_rejects_the_rest_of_the_turn_without_asking() {
    let f = fixture(
        r#"{"permission": {"edit": "ask"}}"#,
        PermissionDecision::RejectOnce,
    );
    let ctx = context(&f, CancellationToken::new());
    for path in ["a.txt", "b.txt"] {
        let error = f.gate.check(&ctx, edit(path)).await.unwrap_err();
        assert_eq!(
            error.for_person().unwrap(),
            "Rejected: Edit a.txt".replace("a.txt", path)
        );
    }
    assert_eq!(f.port.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_cancelled_turn_asks_nothing_and_an_answer_after_a_cancel_does_not_count() {
    let f = fixture(
        r#"{"permission": {"edit": "ask"}}"#,
        PermissionDecision::AllowOnce,
    );
    let cancel = CancellationToken::new();
    cancel.cancel();
    let ctx = context(&f, cancel);
    let error = f.gate.check(&ctx, edit("a.txt")).await.unwrap_err();
    assert!(matches!(error, ToolError::Cancelled));
    assert!(f.port.asked.lock().unwrap().is_empty());

    let cancel = CancellationToken::new();
    *f.port.cancels.lock().unwrap() = Some(cancel.clone());
    let ctx = context(&f, cancel);
    let error = f.gate.check(&ctx, edit("a.txt")).await.unwrap_err();
    assert!(
        matches!(error, ToolError::Cancelled),
        "allowed, but too late"
    );
    assert_eq!(f.port.asked.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_always_given_as_the_turn_is_cancelled_still_holds() {
    let f = fixture(
        r#"{"permission": {"edit": "ask"}}"#,
        PermissionDecision::AllowAlways,
    );
    let cancel = CancellationToken::new();
    *f.port.cancels.lock().unwrap() = Some(cancel.clone());
    let error = f
        .gate
        .check(&context(&f, cancel), edit("a.txt"))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::Cancelled));
    let stored = f.store.approvals(&f.project.display().to_string()).unwrap();
    assert_eq!(stored, [Rule::new("edit", "*", Action::Allow)]);
}

#[test]
fn a_tool_denied_for_every_input_is_not_offered_under_its_permission_key() {
    let f = fixture(
        r#"{"permission": {"edit": "deny", "bash": {"*": "deny", "ls": "allow"}}}"#,
        PermissionDecision::AllowOnce,
    );
    let tools = Registry::builtin();
    let offered = |name: &str| f.gate.offers(tools.get(name).unwrap().as_ref());
    assert!(!offered("write"), "write is checked as edit");
    assert!(!offered("apply_patch"));
    assert!(offered("bash"), "ls is still allowed");
    assert!(offered("read"));
}
