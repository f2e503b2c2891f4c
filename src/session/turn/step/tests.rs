use std::sync::{Arc, Mutex, Weak};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::agent::Agents;
use crate::bus::Bus;
use crate::config::{Config, LoadedConfig};
use crate::id::SessionId;
use crate::message::{PartBody, SessionInfo, ToolState};
use crate::session::core::state::Services;
use crate::session::host::manager::SessionManager;
use crate::session::settings::Settings;
use crate::session::turn::setup::TurnChoice;
use crate::store::Store;
use crate::tool::{PermissionDecision, Registry, UnattendedPort};

/// A session in a temp project whose model replays `turns`, and what its bus carried.
struct Bench {
    _dir: tempfile::TempDir,
    state: SessionState,
    services: Services,
    events: Arc<Mutex<Vec<String>>>,
    _subscription: crate::bus::Subscription,
}

fn bench(turns: serde_json::Value, permission: serde_json::Value) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("a.txt"), "a\n").unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, json!({"turns": turns}).to_string()).unwrap();
    let config = json!({
        "model": "t/s",
        "provider": {"t": {"api": "scripted", "options": {"script": script}}},
        "permission": permission,
    });
    let config = Arc::new(LoadedConfig {
        config: Config::from_json_str(&config.to_string()).unwrap(),
        ..Default::default()
    });
    let store = Arc::new(Store::open_in(&dir.path().join("data")).unwrap());
    let info = SessionInfo {
        id: SessionId::new(),
        parent_id: None,
        cwd: project.clone(),
        extra_roots: Vec::new(),
        title: "t".into(),
        created_at: 1,
        updated_at: 1,
    };
    store.create_session(&info).unwrap();
    let bus = Bus::new();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let subscription = bus.subscribe(move |event| {
        let line = match event {
            Event::TextDelta { delta, .. } => format!("text {delta}"),
            Event::PartUpdated { part, is_new } => match &part.body {
                PartBody::Tool(call) => format!(
                    "tool {} {}{}",
                    call.call_id,
                    match call.state {
                        ToolState::Pending { .. } => "pending",
                        ToolState::Running { .. } => "running",
                        ToolState::Completed { .. } => "completed",
                        ToolState::Error { .. } => "error",
                    },
                    if *is_new { " (new)" } else { "" }
                ),
                _ => return,
            },
            Event::Usage { .. } => "usage".into(),
            _ => return,
        };
        sink.lock().unwrap().push(line);
    });
    let agents = Agents::load(
        &config.config,
        &[(&project, &crate::config::Standing::LISTING)],
    );
    let commands = crate::command::Commands::load(&config.config, &[&project]);
    let status =
        crate::session::core::status::StatusCell::new(info.id.clone(), store.clone(), bus.clone());
    let id = info.id.clone();
    let state = SessionState {
        settings: Arc::new(Settings::new(config.clone(), agents, commands)),
        info,
        messages: Vec::new(),
        config,
        mcp: Arc::new(crate::mcp::McpSet::default()),
        revert: None,
        hidden: Vec::new(),
        status,
        files: Default::default(),
        jobs: Default::default(),
        background: Default::default(),
        memory: None,
        goal: Arc::new(crate::session::core::goal_cell::GoalCell::load(
            id.clone(),
            store.clone(),
            bus.clone(),
        )),
        skills: Default::default(),
        hooks: Default::default(),
        hooks_started: false,
        told_left_off: false,
        carried_watch: None,
        remote: None,
    };
    let services = Services {
        snapshots: Arc::new(crate::snapshot::Snapshots::disabled()),
        store,
        bus,
        tools: Registry::builtin(),
        children: Weak::<SessionManager>::new(),
        lsp: Arc::default(),
    };
    Bench {
        _dir: dir,
        state,
        services,
        events,
        _subscription: subscription,
    }
}

fn setup(bench: &Bench, decision: PermissionDecision, cancel: CancellationToken) -> TurnSetup {
    let choice = TurnChoice {
        agent: bench.state.settings.agent(),
        model: Some("t/s".into()),
        granted: Vec::new(),
    };
    let port = Arc::new(UnattendedPort { decision });
    TurnSetup::new(&bench.state, &bench.services, choice, port, cancel).unwrap()
}

fn tool_state(message: &Message) -> &ToolState {
    message
        .parts
        .iter()
        .find_map(|p| match &p.body {
            PartBody::Tool(call) => Some(&call.state),
            _ => None,
        })
        .expect("a tool part")
}

#[tokio::test]
async fn a_step_streams_runs_its_call_and_records_everything() {
    let mut bench = bench(
        json!([[{"text": "Looking around."}, {"tool_call": {"name": "list", "input": {}}}],
               [{"text": "Done."}]]),
        json!({}),
    );
    let setup = setup(
        &bench,
        PermissionDecision::RejectOnce,
        CancellationToken::new(),
    );
    let outcome = run(&mut bench.state, &setup, false, 0).await.unwrap();
    assert_eq!(outcome, StepOutcome::ToolsRan);
    let message = &bench.state.messages[0];
    let ToolState::Completed { output, .. } = tool_state(message) else {
        panic!("{message:?}");
    };
    assert!(output.contains("a.txt"), "{output}");
    assert_eq!(message.info.finish, Some(FinishReason::ToolCalls));
    let events = bench.events.lock().unwrap().clone();
    let call = events
        .iter()
        .find_map(|e| e.split(' ').nth(1).filter(|_| e.starts_with("tool ")))
        .unwrap()
        .to_owned();
    assert_eq!(
        events,
        [
            "text Looking",
            "text  around.",
            &format!("tool {call} pending (new)"),
            &format!("tool {call} pending"),
            &format!("tool {call} running"),
            &format!("tool {call} completed"),
            "usage",
        ]
    );

    assert_eq!(
        run(&mut bench.state, &setup, false, 0).await.unwrap(),
        StepOutcome::Ended(StopReason::EndTurn)
    );
    // What the session holds is what the store holds.
    bench.services.store.flush().unwrap();
    let stored = bench
        .services
        .store
        .load_messages(&bench.state.info.id)
        .unwrap();
    assert_eq!(stored, bench.state.messages);
}

#[tokio::test]
async fn a_rejected_call_never_runs_and_says_so_to_each_reader() {
    let mut bench = bench(
        json!([[{"tool_call": {"name": "bash", "input": {"command": "echo hi"}}}]]),
        json!({"bash": "ask"}),
    );
    let setup = setup(
        &bench,
        PermissionDecision::RejectOnce,
        CancellationToken::new(),
    );
    run(&mut bench.state, &setup, false, 0).await.unwrap();
    let ToolState::Error { error, shown, .. } = tool_state(&bench.state.messages[0]) else {
        panic!("the call failed");
    };
    assert!(error.starts_with("The user rejected permission"), "{error}");
    assert_eq!(shown.as_deref(), Some("Rejected: echo hi"));
    let events = bench.events.lock().unwrap().clone();
    assert!(!events.iter().any(|e| e.ends_with("running")), "{events:?}");
}

#[tokio::test]
async fn the_last_step_offers_no_tools_and_a_cancelled_one_stops_the_turn() {
    let mut bench = bench(
        json!([[{"tool_call": {"name": "list", "input": {}}}]]),
        json!({}),
    );
    let setup = setup(
        &bench,
        PermissionDecision::AllowOnce,
        CancellationToken::new(),
    );
    // On the last step the model may still ask for a tool; none is offered, so it fails.
    run(&mut bench.state, &setup, true, 0).await.unwrap();
    let ToolState::Error { error, .. } = tool_state(&bench.state.messages[0]) else {
        panic!("no tool was offered");
    };
    assert_eq!(
        error,
        "There is no tool named `list` here. Available tools: none."
    );

    let cancel = CancellationToken::new();
    cancel.cancel();
    let setup = self::setup(&bench, PermissionDecision::AllowOnce, cancel);
    assert_eq!(
        run(&mut bench.state, &setup, false, 0).await.unwrap(),
        StepOutcome::Ended(StopReason::Cancelled)
    );
    assert_eq!(
        bench.state.messages[1].info.finish,
        Some(FinishReason::Cancelled)
    );
}
