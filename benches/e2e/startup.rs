//! Start-up and idle cost: spawn → `initialize`, `session/new`, resident memory idle and per
//! extra idle session.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::Bench;
use crate::agent::{Agent, pss_kb, rss_kb};
use crate::report::{Figure, median, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let runs = bench.runs;
    // `true` is the machine's floor for spawning and reaping a process.
    let floor = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                Command::new("true").status().unwrap();
                ms(t.elapsed())
            })
            .collect(),
    );
    let init = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let _agent = Agent::ready(&bench.data, &bench.config);
            ms(t.elapsed())
        })
        .collect();
    let init = Figure::from_samples("spawn → initialize answered".into(), "ms", init, "≤ 5 ms");
    let init_ratio = init.median / floor;
    let mut figures =
        vec![init.beside(format!("spawning `true`: {floor:.2} ms ({init_ratio:.1}×)"))];

    let project = bench.project("startup");
    // What an editor waits for before its first prompt: a fresh process's first session.
    let first = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let mut fresh = Agent::ready(&bench.data, &bench.config);
            fresh.new_session(&project);
            ms(t.elapsed())
        })
        .collect();
    let first = Figure::from_samples(
        "spawn → first session/new answered".into(),
        "ms",
        first,
        "≤ 10 ms",
    );
    let first_ratio = first.median / floor;
    figures.push(first.beside(format!(
        "spawning `true`: {floor:.2} ms ({first_ratio:.1}×)"
    )));
    let mut agent = Agent::ready(&bench.data, &bench.config);
    std::thread::sleep(Duration::from_millis(100));
    let (idle_kb, idle_pss_kb) = (agent.rss_kb(), agent.pss_kb());
    let ping = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                agent.request("session/list", json!({"cwd": "/nonexistent"}));
                ms(t.elapsed())
            })
            .collect(),
    );
    let sessions = if bench.quick { 5 } else { 100 };
    let (one_kb, one_pss_kb) = one_session_kb(bench, &project);
    let before_kb = agent.rss_kb();
    let new_times = (0..sessions)
        .map(|_| {
            let t = Instant::now();
            agent.new_session(&project);
            ms(t.elapsed())
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    let after_kb = agent.rss_kb();
    let new = Figure::from_samples("session/new round trip".into(), "ms", new_times, "≤ 5 ms");
    let new_ratio = new.median / ping;
    let plain = new.median;
    figures.push(new.beside(format!(
        "a session/list round trip: {ping:.3} ms ({new_ratio:.1}×)"
    )));
    figures.push(with_roots(bench, &mut agent, &project, plain));
    let (cat_kb, cat_pss_kb) = idle_cat_kb();
    let mib = |kb: u64| kb as f64 / 1024.0;
    for (when, rss, pss) in [
        ("initialize", idle_kb, idle_pss_kb),
        ("one session/new", one_kb, one_pss_kb),
    ] {
        figures.push(
            Figure::single(
                format!("idle resident memory after {when}"),
                "MiB",
                mib(rss),
                "≤ 12 MiB",
            )
            .beside(format!(
                "proportional set size {:.1} MiB; an idle `cat`: {:.1} MiB (PSS {:.1})",
                mib(pss),
                mib(cat_kb),
                mib(cat_pss_kb)
            )),
        );
    }
    figures.push(Figure::single(
        format!("memory per additional idle session ({sessions} sessions)"),
        "KB",
        after_kb.saturating_sub(before_kb) as f64 / sessions as f64,
        "≤ 200 KB",
    ));
    figures
}

/// `session/new` with five other workspace roots, beside one without (`plain`, its median).
fn with_roots(bench: &Bench, agent: &mut Agent, project: &std::path::Path, plain: f64) -> Figure {
    let roots: Vec<std::path::PathBuf> = (0..5)
        .map(|n| {
            let root = bench.root.join(format!("root-{n}"));
            std::fs::create_dir_all(&root).unwrap();
            root
        })
        .collect();
    let runs = if bench.quick { 5 } else { 100 };
    let times = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let params = json!({"cwd": project, "mcpServers": [], "additionalDirectories": roots});
            let (answer, _) = agent.request("session/new", params);
            assert!(answer["result"]["sessionId"].is_string(), "{answer}");
            ms(t.elapsed())
        })
        .collect();
    let figure = Figure::from_samples(
        "session/new with 5 other workspace roots, round trip".into(),
        "ms",
        times,
        "within 2 ms of one without",
    );
    let more = figure.median - plain;
    figure.beside(format!("one without: {plain:.3} ms (+{more:.3} ms)"))
}

/// Resident and proportional memory of a fresh agent idle after one `session/new`.
fn one_session_kb(bench: &Bench, project: &std::path::Path) -> (u64, u64) {
    let mut agent = Agent::ready(&bench.data, &bench.config);
    agent.new_session(project);
    // What the session does after its answer (the sandbox report) is done by then.
    std::thread::sleep(Duration::from_millis(300));
    (agent.rss_kb(), agent.pss_kb())
}

/// Resident and proportional memory of an idle `cat`: the floor for any process here.
fn idle_cat_kb() -> (u64, u64) {
    let mut cat = Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let kb = (rss_kb(cat.id()), pss_kb(cat.id()));
    let _ = cat.kill();
    let _ = cat.wait();
    kb
}
