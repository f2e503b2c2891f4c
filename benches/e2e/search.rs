//! The `grep` and `glob` tools on a large tree, called by the model through the real binary,
//! beside `rg` doing the same search on the same tree in the same run. A call's time is from
//! its `in_progress` update to its `completed` update as the editor receives them.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::report::{Figure, median, ms};
use crate::tree::{make_tree, rg_available};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let files = std::env::var("TANDEM_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if bench.quick { 2_000 } else { 100_000 });
    let project = bench.project("search");
    let tree = project.join("tree");
    if !tree.exists() {
        make_tree(&tree, files);
    }
    let runs = if bench.quick { 2 } else { 10 };
    let rg = rg_available();
    let mut figures = Vec::new();
    for (tool, input, rg_args) in [
        (
            "grep",
            json!({"pattern": "needle_here", "path": "tree"}),
            vec!["-n", "needle_here", "tree"],
        ),
        (
            "glob",
            json!({"pattern": "**/f1*.rs", "path": "tree"}),
            vec!["--files", "--glob", "**/f1*.rs", "tree"],
        ),
    ] {
        let tandem = tool_times(bench, &project, tool, &input, runs);
        let figure = Figure::from_samples(
            format!("{tool} tool on {files} files"),
            "ms",
            tandem,
            "within 1.5× of rg",
        );
        figures.push(if rg {
            let reference = median(
                (0..runs)
                    .map(|_| {
                        let t = Instant::now();
                        let out = Command::new("rg")
                            .args(&rg_args)
                            .current_dir(&project)
                            .output()
                            .unwrap();
                        std::hint::black_box(out.stdout.len());
                        ms(t.elapsed())
                    })
                    .collect(),
            );
            let ratio = figure.median / reference;
            figure.beside(format!(
                "rg {}: {reference:.1} ms ({ratio:.2}×)",
                rg_args.join(" ")
            ))
        } else {
            figure.beside("rg not installed (apt-get install ripgrep)".into())
        });
    }
    figures
}

/// Times of `runs` calls of `tool` with `input`, each made by the scripted model in a turn.
fn tool_times(bench: &Bench, project: &Path, tool: &str, input: &Value, runs: usize) -> Vec<f64> {
    let script = bench.root.join(format!("{tool}.json"));
    std::fs::write(
        &script,
        json!({"turns": [[{"tool_call": {"name": tool, "input": input}}], [{"text": "found"}]]})
            .to_string(),
    )
    .unwrap();
    use_model(
        project,
        "search/s",
        json!({"search": scripted(&script)}),
        json!({}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    (0..runs)
        .map(|_| {
            // A new session each time: identical calls in a row would stop for a loop check.
            let session = agent.new_session(project);
            let mut started = None;
            let mut ended = None;
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
            let (started, ended) = started.zip(ended).expect("the tool ran and completed");
            ms(ended - started)
        })
        .collect()
}
