//! Snapshots and the session surface: recording a large tree after one change and for the
//! first time (beside `git add -A && git write-tree` on the same tree), reverting a 50-file
//! change over ACP, and the control server listing 10,000 sessions.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};
use tandem::snapshot::Snapshots;

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::report::{Figure, median, ms};
use crate::tree::make_tree;

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (changed, first) = if bench.quick {
        (1_000, 2_000)
    } else {
        (10_000, 100_000)
    };
    vec![
        after_one_change(bench, &runtime, changed),
        first_snapshot(bench, &runtime, first),
        revert(bench),
        list_sessions(bench, &runtime),
    ]
}

/// `git add -A && git write-tree` in the project's own repository; the time it took.
fn git_add_write_tree(project: &Path) -> f64 {
    let started = Instant::now();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(project)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    };
    git(&["add", "-A"]);
    git(&["write-tree"]);
    ms(started.elapsed())
}

fn init_repo(project: &Path) {
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(project)
        .status()
        .unwrap();
    assert!(status.success());
}

fn after_one_change(bench: &Bench, runtime: &tokio::runtime::Runtime, files: usize) -> Figure {
    let project = bench.project("snapshot-changed");
    make_tree(&project, files);
    init_repo(&project);
    let snapshots = Snapshots::new(bench.root.join("snapshot-changed-store"));
    let store = snapshots.project(&project).unwrap();
    runtime.block_on(store.track()).unwrap();
    git_add_write_tree(&project);
    let target = project.join("d0/e0/f0.rs");
    let (mut ours, mut git) = (Vec::new(), Vec::new());
    for run in 0..bench.runs.max(10) {
        std::fs::write(&target, format!("// changed {run}\n")).unwrap();
        let started = Instant::now();
        runtime.block_on(store.track()).unwrap();
        ours.push(ms(started.elapsed()));
        git.push(git_add_write_tree(&project));
    }
    let reference = median(git);
    let figure = Figure::from_samples(
        format!("snapshot of a {files}-file tree after one file changed"),
        "ms",
        ours,
        "≤ 1.2× git",
    );
    let ratio = figure.median / reference;
    figure.beside(format!(
        "git add -A && git write-tree: {reference:.1} ms ({ratio:.2}×)"
    ))
}

fn first_snapshot(bench: &Bench, runtime: &tokio::runtime::Runtime, files: usize) -> Figure {
    let project = bench.project("snapshot-first");
    make_tree(&project, files);
    let runs = if bench.quick { 1 } else { 3 };
    let (mut ours, mut git) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let store_dir = bench.root.join(format!("snapshot-first-store-{run}"));
        let snapshots = Snapshots::new(store_dir.clone());
        let store = snapshots.project(&project).unwrap();
        let started = Instant::now();
        runtime.block_on(store.track()).unwrap();
        ours.push(ms(started.elapsed()));
        // Each measurement follows the removal of the other's 100,000 objects, so neither
        // pays alone for the file system catching up.
        std::fs::remove_dir_all(&store_dir).unwrap();
        let started = Instant::now();
        init_repo(&project);
        git_add_write_tree(&project);
        git.push(ms(started.elapsed()));
        std::fs::remove_dir_all(project.join(".git")).unwrap();
    }
    let reference = median(git);
    let figure = Figure::from_samples(
        format!("first snapshot of a {files}-file tree"),
        "ms",
        ours,
        "≤ 1.2× git",
    );
    let ratio = figure.median / reference;
    figure.beside(format!(
        "git init && git add -A && git write-tree: {reference:.0} ms ({ratio:.2}×)"
    ))
}

/// A turn whose one `apply_patch` call changes 50 files, then revert and unrevert over ACP.
fn revert(bench: &Bench) -> Figure {
    let project = bench.project("snapshot-revert");
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..50 {
        std::fs::write(
            project.join(format!("f{i}.txt")),
            format!("line {i}\nkeep\n"),
        )
        .unwrap();
        patch.push_str(&format!(
            "*** Update File: f{i}.txt\n@@\n-line {i}\n+changed {i}\n keep\n"
        ));
    }
    patch.push_str("*** End Patch\n");
    let script = bench.root.join("snapshot-revert.json");
    let call = json!({"tool_call": {"name": "apply_patch", "input": {"patchText": patch}}});
    std::fs::write(
        &script,
        json!({"turns": [[call], [{"text": "done"}]]}).to_string(),
    )
    .unwrap();
    use_model(
        &project,
        "patch/s",
        json!({"patch": scripted(&script)}),
        json!({}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let session = agent.new_session(&project);
    agent.prompt_observing(&session, |_| {});
    assert_eq!(
        std::fs::read_to_string(project.join("f7.txt")).unwrap(),
        "changed 7\nkeep\n"
    );
    let (messages, _) = agent.request("_tandem/session/messages", json!({"sessionId": session}));
    let prompt = messages["result"][0]["info"]["id"].clone();
    let before = messages["result"][1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|p| p["snapshot"].as_str().filter(|_| p["type"] == "step-start"))
        .expect("the step recorded a snapshot")
        .to_owned();
    let (mut reverts, mut git) = (Vec::new(), Vec::new());
    for _ in 0..bench.runs.max(10) {
        let started = Instant::now();
        let (answer, _) = agent.request(
            "_tandem/session/revert",
            json!({"sessionId": session, "messageId": prompt}),
        );
        reverts.push(ms(started.elapsed()));
        assert!(answer.get("error").is_none(), "{answer}");
        assert_eq!(
            std::fs::read_to_string(project.join("f7.txt")).unwrap(),
            "line 7\nkeep\n"
        );
        let (answer, _) = agent.request("_tandem/session/unrevert", json!({"sessionId": session}));
        assert!(answer.get("error").is_none(), "{answer}");
        git.push(git_checkout(bench, &project, &before));
    }
    let reference = median(git);
    let figure = Figure::from_samples(
        "revert of a 50-file change (over ACP)".into(),
        "ms",
        reverts,
        "≤ 50 ms",
    );
    let ratio = figure.median / reference;
    figure.beside(format!(
        "git checkout <snapshot> -- <the 50 files>: {reference:.1} ms ({ratio:.2}×)"
    ))
}

/// `git checkout` of the 50 files from Tandem's own snapshot store; the time it took (the
/// files are put back as they were after).
fn git_checkout(bench: &Bench, project: &Path, tree: &str) -> f64 {
    let store = std::fs::read_dir(bench.data.join("snapshot"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("snapshot-revert")
        })
        .unwrap();
    let files: Vec<String> = (0..50).map(|i| format!("f{i}.txt")).collect();
    let saved: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(project.join(f)).unwrap())
        .collect();
    let started = Instant::now();
    let status = Command::new("git")
        .arg("--git-dir")
        .arg(&store)
        .arg("--work-tree")
        .arg(project)
        .args(["checkout", tree, "--"])
        .args(&files)
        .current_dir(project)
        .status()
        .unwrap();
    let took = ms(started.elapsed());
    assert!(status.success());
    for (file, bytes) in files.iter().zip(saved) {
        std::fs::write(project.join(file), bytes).unwrap();
    }
    took
}

/// `session.list` over HTTP JSON-RPC from `tandem serve`, with 10,000 stored sessions.
fn list_sessions(bench: &Bench, runtime: &tokio::runtime::Runtime) -> Figure {
    let data = bench.root.join("serve-data");
    {
        let store = tandem::store::Store::open_in(&data).unwrap();
        for i in 0..10_000i64 {
            store
                .create_session(&tandem::message::SessionInfo {
                    id: tandem::id::SessionId::new(),
                    parent_id: None,
                    cwd: bench.root.join(format!("p{}", i % 20)),
                    extra_roots: Vec::new(),
                    title: format!("Session number {i}"),
                    created_at: i,
                    updated_at: i,
                })
                .unwrap();
        }
    }
    let mut server = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("TANDEM_SERVER_TOKEN", "bench-token")
        .env("TANDEM_DATA_DIR", &data)
        .env("TANDEM_CONFIG_DIR", &bench.config)
        .current_dir(&bench.root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first.trim().to_owned();
    let client = tandem::provider::http_client().clone();
    let call = |method: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}});
        let started = Instant::now();
        let bytes = runtime
            .block_on(async {
                let request = client.post(&url).bearer_auth("bench-token").json(&body);
                request.send().await?.bytes().await
            })
            .unwrap();
        // The whole answer is in; reading it as JSON is the client's cost, not the server's.
        let took = ms(started.elapsed());
        (took, serde_json::from_slice::<Value>(&bytes).unwrap())
    };
    let (mut lists, mut floor) = (Vec::new(), Vec::new());
    for _ in 0..bench.runs.max(10) {
        let (took, answer) = call("session.list");
        assert_eq!(
            answer["result"]["sessions"].as_array().map(Vec::len),
            Some(10_000)
        );
        lists.push(took);
        floor.push(call("session.status").0);
    }
    let _ = server.kill();
    let _ = server.wait();
    let reference = median(floor);
    Figure::from_samples(
        "session.list of 10,000 sessions (tandem serve, HTTP)".into(),
        "ms",
        lists,
        "≤ 20 ms",
    )
    .beside(format!(
        "session.status round trip on the same server: {reference:.2} ms"
    ))
}
