//! MCP figures: `session/new` with five configured stdio servers beside none (the servers
//! connect in the background, so it must not wait for them), and an MCP tool call through
//! Tandem (from its `in_progress` to its `completed` update, as the editor receives them)
//! beside the same call made directly with rmcp's client.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::report::{Figure, median, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let server = test_server();
    let runs = if bench.quick { 3 } else { 20 };
    vec![
        session_new(bench, &server, runs),
        tool_call(bench, &server, runs),
    ]
}

/// `examples/mcp_test_server`, built for the release profile if it is not yet.
fn test_server() -> PathBuf {
    let release = PathBuf::from(env!("CARGO_BIN_EXE_tandem"));
    let path = release.parent().unwrap().join("examples/mcp_test_server");
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let profile = release
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let mut build = std::process::Command::new(cargo);
        build.args(["build", "--example", "mcp_test_server"]);
        if profile == "release" {
            build.arg("--release");
        }
        assert!(
            build.status().unwrap().success(),
            "the MCP test server builds"
        );
    }
    path
}

fn session_new(bench: &Bench, server: &Path, runs: usize) -> Figure {
    let times = |project: &Path| -> Vec<f64> {
        let mut agent = Agent::ready(&bench.data, &bench.config);
        (0..runs)
            .map(|_| {
                // The last session's servers start after its answer: let them, so each
                // session/new is measured on its own (both variants pause alike).
                std::thread::sleep(std::time::Duration::from_millis(100));
                let t = Instant::now();
                agent.new_session(project);
                ms(t.elapsed())
            })
            .collect()
    };
    let none = bench.project("mcp-none");
    use_model(&none, "scripted/demo", json!({}), json!({}));
    let five = bench.project("mcp-five");
    let servers: serde_json::Map<String, serde_json::Value> = (0..5)
        .map(|n| {
            (
                format!("s{n}"),
                json!({"type": "local", "command": [server, format!("--n{n}")]}),
            )
        })
        .collect();
    use_model(&five, "scripted/demo", json!({}), json!({"mcp": servers}));
    let reference = median(times(&none));
    Figure::from_samples(
        "session/new with 5 configured stdio MCP servers".into(),
        "ms",
        times(&five),
        "no measurable difference",
    )
    .beside(format!("with none: {reference:.2} ms"))
}

fn tool_call(bench: &Bench, server: &Path, runs: usize) -> Figure {
    let project = bench.project("mcp-call");
    let script = bench.root.join("mcp-call.json");
    let call = json!({"tool_call": {"name": "test_echo", "input": {"text": "hello"}}});
    std::fs::write(
        &script,
        json!({"turns": [[call], [{"text": "done"}]]}).to_string(),
    )
    .unwrap();
    use_model(
        &project,
        "calls/s",
        json!({"calls": scripted(&script)}),
        json!({"mcp": {"test": {"type": "local", "command": [server]}}}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let through: Vec<f64> = (0..runs)
        .map(|_| {
            let session = agent.new_session(&project);
            let (mut started, mut ended) = (None, None);
            agent.prompt_observing(&session, |line| {
                if !line.contains(r#""sessionUpdate":"tool_call_update""#) {
                    return;
                }
                if line.contains(r#""status":"in_progress""#) {
                    started = Some(Instant::now());
                } else if line.contains(r#""status":"completed""#) {
                    ended = Some(Instant::now());
                }
            });
            let (started, ended) = started.zip(ended).expect("the MCP tool ran and completed");
            ms(ended - started)
        })
        .collect();
    let direct = median(direct_calls(server, runs.max(10)));
    let figure = Figure::from_samples(
        "MCP tool call through Tandem (in_progress → completed)".into(),
        "ms",
        through,
        "≤ 1 ms over a direct call",
    );
    let overhead = figure.median - direct;
    figure.beside(format!(
        "the same call made directly with rmcp: {direct:.3} ms (overhead {overhead:.3} ms)"
    ))
}

/// Times of `n` `echo` calls made straight to the server with rmcp's client.
fn direct_calls(server: &Path, n: usize) -> Vec<f64> {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::TokioChildProcess;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let process = TokioChildProcess::new(tokio::process::Command::new(server)).unwrap();
        let client = ().serve(process).await.unwrap();
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            let mut arguments = serde_json::Map::new();
            arguments.insert("text".into(), "hello".into());
            let request = CallToolRequestParams::new("echo").with_arguments(arguments);
            let t = Instant::now();
            client.call_tool(request).await.unwrap();
            times.push(ms(t.elapsed()));
        }
        let _ = client.cancel().await;
        times
    })
}
