//! Language-server figures: how long an edit's result waits for diagnostics beyond the
//! server's own answer (the fake server of the tests logs the moment it publishes; the figure
//! runs to the editor's `completed` update), with a server that names the version it answers
//! and one that does not (then the settle time applies); and `session/new` with five servers
//! configured beside none (servers start only when a file of theirs is touched).

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::report::{Figure, median, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let runs = if bench.quick { 3 } else { 20 };
    vec![
        diagnostics_wait(bench, runs, true),
        diagnostics_wait(bench, runs, false),
        session_new(bench, runs),
    ]
}

fn fake_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py")
}

fn server(extension: &str, marker: &str, log: Option<&Path>) -> Value {
    let mut env = serde_json::Map::new();
    if let Some(log) = log {
        env.insert("FAKE_LSP_LOG".into(), json!(log));
    }
    json!({"command": ["python3", fake_server(), "ok", marker], "extensions": [extension], "env": env})
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn diagnostics_wait(bench: &Bench, runs: usize, versioned: bool) -> Figure {
    let name = if versioned {
        "lsp-versioned"
    } else {
        "lsp-unversioned"
    };
    let project = bench.project(name);
    let log = bench.root.join(format!("{name}.log"));
    let script = bench.root.join(format!("{name}.json"));
    let write = json!({"tool_call": {"name": "write",
        "input": {"filePath": "bench.fk", "content": "ERROR on the first line\n"}}});
    std::fs::write(
        &script,
        json!({"turns": [[write], [{"text": "done"}]]}).to_string(),
    )
    .unwrap();
    let marker = if versioned { "versioned" } else { "noversion" };
    use_model(
        &project,
        "calls/s",
        json!({"calls": scripted(&script)}),
        json!({"lsp": {"fake": server(".fk", marker, Some(&log))}}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    // The first run starts the server; the figure is of a running one.
    let waits: Vec<f64> = (0..=runs)
        .map(|_| {
            let _ = std::fs::remove_file(project.join("bench.fk"));
            let session = agent.new_session(&project);
            let mut completed = None;
            agent.prompt_observing(&session, |line| {
                if line.contains(r#""sessionUpdate":"tool_call_update""#)
                    && line.contains(r#""status":"completed""#)
                {
                    assert!(
                        line.contains("fake error here"),
                        "the result holds the error: {line}"
                    );
                    completed = Some(now());
                }
            });
            let published: f64 = std::fs::read_to_string(&log)
                .unwrap()
                .lines()
                .last()
                .and_then(|l| l.parse().ok())
                .expect("the server published");
            (completed.expect("the write completed") - published) * 1000.0
        })
        .skip(1)
        .collect();
    let (label, target) = if versioned {
        ("naming the version", "≤ 20 ms")
    } else {
        (
            "without a version: the 15 ms settle applies",
            "≈ the settle time",
        )
    };
    Figure::from_samples(
        format!("edit result after the server's diagnostics ({label})"),
        "ms",
        waits,
        target,
    )
}

fn session_new(bench: &Bench, runs: usize) -> Figure {
    let times = |project: &Path| -> Vec<f64> {
        let mut agent = Agent::ready(&bench.data, &bench.config);
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                agent.new_session(project);
                ms(t.elapsed())
            })
            .collect()
    };
    let none = bench.project("lsp-none");
    use_model(&none, "scripted/demo", json!({}), json!({}));
    let five = bench.project("lsp-five");
    let servers: serde_json::Map<String, Value> = (0..5)
        .map(|n| (format!("s{n}"), server(&format!(".x{n}"), "five", None)))
        .collect();
    use_model(&five, "scripted/demo", json!({}), json!({"lsp": servers}));
    let reference = median(times(&none));
    Figure::from_samples(
        "session/new with 5 configured language servers".into(),
        "ms",
        times(&five),
        "no measurable difference",
    )
    .beside(format!("with none: {reference:.2} ms"))
}
