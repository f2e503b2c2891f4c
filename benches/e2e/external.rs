//! A delegated turn through another ACP agent beside the same turn run by a native subagent:
//! the parent delegates one task whose child reads a file once and answers. Natively the child
//! runs in Tandem's own loop; externally it runs in a second `tandem acp` (the same scripted
//! model), a new process for each task, whose start-up (spawn, `initialize`, `session/new`) is
//! measured on its own and reported beside it.

use std::path::Path;
use std::time::Instant;

use serde_json::json;

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::report::{Figure, median, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let project = bench.project("external");
    std::fs::write(project.join("notes.txt"), "one line of notes\n").unwrap();
    let child = bench.root.join("external-child.json");
    std::fs::write(
        &child,
        json!({"turns": [
            [{"tool_call": {"name": "read", "input": {"filePath": "notes.txt"}}}],
            [{"text": "child done"}]
        ]})
        .to_string(),
    )
    .unwrap();
    // The inner Tandem answers with the child's model whatever the project says.
    let inner_config = bench.root.join("inner-tandem.json");
    std::fs::write(&inner_config, json!({"model": "child/c"}).to_string()).unwrap();
    let inner_data = bench.root.join("inner-data");
    let runs = if bench.quick { 2 } else { 15 };
    let native: Vec<f64> = (0..runs)
        .map(|_| delegated(bench, &project, &child, "general"))
        .collect();
    let outer = json!({"mode": "subagent", "description": "another Tandem", "acp": {
        "command": [env!("CARGO_BIN_EXE_tandem"), "acp"],
        "env": {"TANDEM_CONFIG": inner_config, "TANDEM_DATA_DIR": inner_data,
                "TANDEM_CONFIG_DIR": bench.config}
    }});
    let external: Vec<f64> = (0..runs)
        .map(|_| delegated_to(bench, &project, &child, "outer", Some(&outer)))
        .collect();
    let start: Vec<f64> = (0..runs)
        .map(|_| start_up(&inner_data, &bench.config, &project, &inner_config))
        .collect();
    let native = median(native);
    let start = median(start);
    let figure = Figure::from_samples(
        "a task through an external `tandem acp` (new process each task: spawn, initialize, \
         session/new, one tool call), wall time"
            .into(),
        "ms",
        external,
        "(overhead reported; no target)",
    );
    let overhead = figure.median - native - start;
    let reference = format!(
        "native subagent {native:.1} ms ({:.2}×); the external agent's start-up alone \
         {start:.1} ms; overhead beyond start-up {overhead:.1} ms",
        figure.median / native
    );
    vec![figure.beside(reference)]
}

fn delegated(bench: &Bench, project: &Path, child: &Path, agent: &str) -> f64 {
    delegated_to(bench, project, child, agent, None)
}

/// Milliseconds from a prompt to its answer when its one task goes to `agent`.
fn delegated_to(
    bench: &Bench,
    project: &Path,
    child: &Path,
    agent: &str,
    external: Option<&serde_json::Value>,
) -> f64 {
    let parent = bench.root.join(format!("external-parent-{agent}.json"));
    std::fs::write(
        &parent,
        json!({"turns": [
            [{"tool_call": {"name": "task", "input": {"description": "read the notes",
              "prompt": "read notes.txt", "subagent_type": agent}}}],
            [{"text": "all done"}]
        ]})
        .to_string(),
    )
    .unwrap();
    let mut agents = json!({"general": {"model": "child/c"}});
    if let Some(block) = external {
        agents[agent] = block.clone();
    }
    use_model(
        project,
        "parent/p",
        json!({"parent": scripted(&parent), "child": scripted(child)}),
        json!({"agent": agents}),
    );
    // Another Tandem keeps its own answers: the folder is trusted there too.
    if let Some(data) = external.and_then(|e| e["acp"]["env"]["TANDEM_DATA_DIR"].as_str()) {
        crate::agent::trust(project, Path::new(data));
    }
    let mut editor = Agent::ready(&bench.data, &bench.config);
    let session = editor.new_session(project);
    let t = Instant::now();
    editor.prompt_observing(&session, |_| {});
    ms(t.elapsed())
}

/// Milliseconds for a `tandem acp` to start, answer `initialize` and open a session.
fn start_up(data: &Path, config: &Path, project: &Path, inner_config: &Path) -> f64 {
    let t = Instant::now();
    let mut inner = Agent::spawn_with(data, config, &[("TANDEM_CONFIG", inner_config)]);
    inner.request("initialize", crate::agent::initialize());
    inner.new_session(project);
    ms(t.elapsed())
}
