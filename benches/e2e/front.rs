//! Tandem in front of another agent (`tandem acp --agent probe`) beside the same agent alone,
//! driven the same way in the same run: the test ACP agent (`examples/acp_test_agent`) answers
//! each prompt with one chunk, or with 2,000 one-word chunks as fast as it can. Figures: the
//! time from a prompt to its first chunk on a started session, and what Tandem adds per chunk.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use crate::Bench;
use crate::agent::Agent;
use crate::report::{Figure, median, ms};

/// The chunks of the long answer.
const CHUNKS: usize = 2_000;

/// `examples/acp_test_agent`, built for the bench's profile if it is not yet.
fn test_agent() -> PathBuf {
    let release = PathBuf::from(env!("CARGO_BIN_EXE_tandem"));
    let path = release.parent().unwrap().join("examples/acp_test_agent");
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = std::process::Command::new(cargo);
        build.args(["build", "--example", "acp_test_agent"]);
        if release.parent().unwrap().ends_with("release") {
            build.arg("--release");
        }
        assert!(build.status().unwrap().success(), "the test agent builds");
    }
    path
}

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let project = bench.project("front");
    let agent = test_agent();
    std::fs::write(
        project.join("tandem.json"),
        json!({"agent": {"probe": {"mode": "primary", "acp": {"command": [agent]}}}}).to_string(),
    )
    .unwrap();
    crate::agent::trust(&project, &bench.data);
    let alone = || Agent::spawn_program(&agent, &[], &bench.data, &bench.config, &[]);
    let front = || {
        Agent::spawn_program(
            Path::new(env!("CARGO_BIN_EXE_tandem")),
            &["acp", "--agent", "probe"],
            &bench.data,
            &bench.config,
            &[],
        )
    };
    let runs = if bench.quick { 3 } else { 30 };
    let (first_alone, long_alone) = measure(alone(), &project, runs);
    let (first_front, long_front) = measure(front(), &project, runs);
    let first = Figure::from_samples(
        "Tandem in front: a prompt to the agent's first chunk (session started)".into(),
        "ms",
        first_front,
        "Tandem adds under 5 ms",
    );
    let alone_first = median(first_alone);
    let added = first.median - alone_first;
    let per_chunk = Figure::from_samples(
        format!("Tandem in front: a {CHUNKS}-chunk answer, per chunk"),
        "ms",
        long_front.iter().map(|t| t / CHUNKS as f64).collect(),
        "Tandem adds under 1 ms",
    );
    let alone_chunk = median(long_alone) / CHUNKS as f64;
    let added_chunk = per_chunk.median - alone_chunk;
    vec![
        first.beside(format!(
            "the agent alone {alone_first:.2} ms: Tandem adds {added:.2} ms"
        )),
        per_chunk.beside(format!(
            "the agent alone {alone_chunk:.4} ms: Tandem adds {added_chunk:.4} ms"
        )),
    ]
}

/// Over `runs` prompts of a started session: milliseconds to the first chunk of a one-chunk
/// answer, and the whole of a long answer.
fn measure(mut agent: Agent, project: &Path, runs: usize) -> (Vec<f64>, Vec<f64>) {
    agent.request("initialize", crate::agent::initialize());
    let session = agent.new_session(project);
    // The first prompt starts the agent behind Tandem: not what is measured.
    agent.say_observing(&session, "steps: chunks:1", |_| {});
    let mut first = Vec::with_capacity(runs);
    let mut long = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let mut seen = None;
        agent.say_observing(&session, "steps: chunks:1", |line| {
            if seen.is_none() && line.contains("agent_message_chunk") {
                seen = Some(t.elapsed());
            }
        });
        first.push(ms(seen.expect("a chunk came")));
        let t = Instant::now();
        agent.say_observing(&session, &format!("steps: chunks:{CHUNKS}"), |_| {});
        long.push(ms(t.elapsed()));
    }
    (first, long)
}
