//! `session/load` of a long session: written straight into the store, then replayed in full
//! to a fresh process.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use crate::Bench;
use crate::agent::Agent;
use crate::report::{Figure, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let project = bench.project("history");
    let messages = if bench.quick { 200 } else { 10_000 };
    let long = seed_long_session(&bench.data, &project, messages);
    let loads = (0..if bench.quick { 2 } else { 10 })
        .map(|_| {
            let mut agent = Agent::ready(&bench.data, &bench.config);
            let t = Instant::now();
            let (_, replayed) = agent.request(
                "session/load",
                json!({"sessionId": long, "cwd": project, "mcpServers": []}),
            );
            assert!(replayed >= messages, "the whole history was replayed");
            ms(t.elapsed())
        })
        .collect();
    let store = tandem::store::Store::open_in(&bench.data).unwrap();
    let id = tandem::id::SessionId(long.clone());
    let reads = (0..5)
        .map(|_| {
            let t = Instant::now();
            assert_eq!(store.load_messages(&id).unwrap().len(), messages);
            ms(t.elapsed())
        })
        .collect();
    let floor = crate::report::median(reads);
    let figure = Figure::from_samples(
        format!("session/load of {messages} messages (replay fully sent)"),
        "ms",
        loads,
        "≤ 250 ms",
    );
    let ratio = figure.median / floor;
    vec![figure.beside(format!(
        "reading its rows from SQLite in-process: {floor:.1} ms ({ratio:.1}×)"
    ))]
}

/// A session of `n` messages (user and assistant alternating, one text part each).
fn seed_long_session(data: &Path, project: &Path, n: usize) -> String {
    use tandem::id::{PartId, SessionId};
    use tandem::message::{MessageInfo, Part, PartBody, Role, SessionInfo};
    let store = tandem::store::Store::open_in(data).unwrap();
    let id = SessionId::new();
    store
        .create_session(&SessionInfo {
            id: id.clone(),
            parent_id: None,
            cwd: project.to_owned(),
            extra_roots: Vec::new(),
            title: "long".into(),
            created_at: 1,
            updated_at: 1,
        })
        .unwrap();
    for i in 0..n {
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let info = MessageInfo {
            completed_at: Some(i as i64),
            ..MessageInfo::new(id.clone(), role, "build", i as i64)
        };
        store.put_message(&info).unwrap();
        store
            .put_part(&Part {
                id: PartId::new(),
                message_id: info.id.clone(),
                session_id: id.clone(),
                body: PartBody::Text {
                    text: format!("message number {i} with a little text in it"),
                    synthetic: false,
                },
            })
            .unwrap();
    }
    store.flush().unwrap();
    id.to_string()
}
