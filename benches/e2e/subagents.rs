//! Subagents side by side: one message delegates to N subagents at once, each making M tool
//! calls (`read`, with a different range each time) with the scripted model. The wall time of
//! N is set beside the wall time of one.
//!
//! With a model that answers instantly, a subagent is pure CPU and N of them cannot beat N/2
//! times one on two cores; so the main figure gives each model call 20 ms before its answer
//! (faster than any hosted model's first token), and the instant figure shows the CPU cost.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::report::{Figure, median, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let (many, calls) = if bench.quick { (4, 3) } else { (100, 20) };
    let project = bench.project("parallel");
    let notes: String = (1..=40)
        .map(|i| format!("line {i} of the notes\n"))
        .collect();
    std::fs::write(project.join("notes.txt"), notes).unwrap();
    let mut figures = Vec::new();
    let repeats = if bench.quick { 1 } else { 3 };
    for latency_ms in [20, 0] {
        let child = child_script(bench, calls, latency_ms);
        let one = median(
            (0..repeats)
                .map(|_| wall_time(bench, &project, &child, 1))
                .collect(),
        );
        let all: Vec<f64> = (0..repeats)
            .map(|_| wall_time(bench, &project, &child, many))
            .collect();
        let (name, target) = if latency_ms > 0 {
            (
                format!(
                    "{many} subagents in parallel ({calls} tool calls each, model answers after {latency_ms} ms), wall time"
                ),
                "within 2× of one subagent's",
            )
        } else {
            (
                format!(
                    "{many} subagents in parallel ({calls} tool calls each, instant model: all CPU), wall time"
                ),
                "(CPU cost; no target)",
            )
        };
        let figure = Figure::from_samples(name, "ms", all, target);
        let steps = many * (2 * calls + 1);
        let mut reference = format!("one subagent: {one:.1} ms ({:.2}×)", figure.median / one);
        if latency_ms == 0 {
            let per_call = figure.median * 1000.0 / steps as f64;
            reference.push_str(&format!("; {per_call:.0} µs per model or tool call"));
        }
        figures.push(figure.beside(reference));
    }
    figures
}

/// The subagents' script: `calls` reads of different ranges, then an answer; each model
/// call waits `latency_ms` first.
fn child_script(bench: &Bench, calls: usize, latency_ms: u64) -> std::path::PathBuf {
    let wait = |events: Vec<Value>| -> Value {
        let mut turn = Vec::new();
        if latency_ms > 0 {
            turn.push(json!({"sleep_ms": latency_ms}));
        }
        turn.extend(events);
        Value::Array(turn)
    };
    let mut turns: Vec<Value> = (0..calls)
        .map(|i| {
            wait(vec![json!({"tool_call": {"name": "read",
                "input": {"filePath": "notes.txt", "offset": i + 1, "limit": 10}}})])
        })
        .collect();
    turns.push(wait(vec![json!({"text": "child done"})]));
    let path = bench.root.join(format!("child-{latency_ms}.json"));
    std::fs::write(&path, json!({"turns": turns}).to_string()).unwrap();
    path
}

/// Milliseconds from the prompt to its answer when one message delegates to `n` subagents.
fn wall_time(bench: &Bench, project: &Path, child: &Path, n: usize) -> f64 {
    let calls: Vec<Value> = (0..n)
        .map(|i| {
            json!({"tool_call": {"name": "task", "input": {"description": format!("job {i}"),
            "prompt": format!("job {i}"), "subagent_type": "general"}}})
        })
        .collect();
    let parent = bench.root.join(format!("parent-{n}.json"));
    std::fs::write(
        &parent,
        json!({"turns": [calls, [{"text": "all done"}]]}).to_string(),
    )
    .unwrap();
    use_model(
        project,
        "parent/p",
        json!({"parent": scripted(&parent), "child": scripted(child)}),
        json!({"agent": {"general": {"model": "child/c"}}}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let session = agent.new_session(project);
    let t = Instant::now();
    agent.prompt_observing(&session, |_| {});
    ms(t.elapsed())
}
