//! The end-to-end bench driver: starts the release binary, speaks ACP to it over stdio (with
//! the scripted provider, or a paced model server on 127.0.0.1) and reports median and p95 of
//! each figure beside a reference measured in the same run, as a table and as
//! `target/bench/results.json`.
//!
//! `cargo bench --bench e2e`; `-- --quick` (or `cargo test`, which CI runs) is the few-iteration
//! smoke run that only keeps the driver working. `-- <name>` runs the figures whose module
//! name contains `<name>` (startup, streaming, history, subagents, external, search, context,
//! mcp, lsp, snapshots, worktrees, import, front).
#![allow(clippy::print_stdout)] // A benchmark report goes to the terminal.

mod agent;
mod context;
mod external;
mod front;
mod history;
mod import;
mod lsp;
mod mcp;
mod mock_sse;
mod recording_model;
mod report;
mod search;
mod snapshots;
mod startup;
mod streaming;
mod subagents;
#[path = "../common/tree.rs"]
mod tree;
mod worktrees;

use std::path::PathBuf;

use report::Figure;

/// A group of figures measured together.
type FigureGroup = fn(&Bench) -> Vec<Figure>;

/// Where one run works: a temporary root with the data and config directories.
pub struct Bench {
    pub quick: bool,
    pub runs: usize,
    pub root: PathBuf,
    pub data: PathBuf,
    pub config: PathBuf,
}

impl Bench {
    /// A project directory of its own for one group of figures.
    pub fn project(&self, name: &str) -> PathBuf {
        let dir = self.root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `cargo bench` passes `--bench`; under `cargo test` (no `--bench`) only the smoke run goes.
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let dir = tempfile::tempdir().unwrap();
    let bench = Bench {
        quick,
        runs: if quick { 3 } else { 30 },
        root: dir.path().to_owned(),
        data: dir.path().join("data"),
        config: dir.path().join("config"),
    };
    std::fs::create_dir_all(&bench.config).unwrap();
    let groups: [(&str, FigureGroup); 13] = [
        ("startup", startup::figures),
        ("streaming", streaming::figures),
        ("history", history::figures),
        ("subagents", subagents::figures),
        ("external", external::figures),
        ("front", front::figures),
        ("search", search::figures),
        ("context", context::figures),
        ("mcp", mcp::figures),
        ("lsp", lsp::figures),
        ("snapshots", snapshots::figures),
        ("worktrees", worktrees::figures),
        ("import", import::figures),
    ];
    let mut figures = Vec::new();
    for (name, run) in groups {
        if only.is_empty() || only.iter().any(|o| name.contains(o.as_str())) {
            figures.extend(run(&bench));
        }
    }
    let file = match (quick, only.is_empty()) {
        (true, _) => "results-smoke.json",
        (false, true) => "results.json",
        (false, false) => "results-partial.json",
    };
    report::report(&figures, file);
}
