//! The end-to-end bench driver: starts the release binary, speaks ACP to it over stdio (with
//! the scripted provider, no network) and reports median and p95 of each figure beside a
//! reference measured in the same run, as a table and as `target/bench/results.json`.
//!
//! `cargo bench --bench e2e`; `-- --quick` (or `cargo test`, which CI runs) is the few-iteration
//! smoke run that only keeps the driver working.
#![allow(clippy::print_stdout)] // A benchmark report goes to the terminal.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

struct Agent {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Agent {
    fn spawn(data: &Path, config: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tandem"))
            .arg("acp")
            .env("TANDEM_DATA_DIR", data)
            .env("TANDEM_CONFIG_DIR", config)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the release binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        self.next_id
    }

    /// Reads lines until the response to `id`; returns it and how many notifications came first.
    fn wait(&mut self, id: u64) -> (Value, usize) {
        let mut notifications = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line).unwrap() == 0 {
                panic!("the agent closed stdout");
            }
            // Only answers are parsed: the cost of reading updates is the editor's, not Tandem's.
            if line.starts_with(r#"{"jsonrpc":"2.0","method""#) {
                notifications += 1;
                continue;
            }
            let message: Value = serde_json::from_str(&line).unwrap();
            if message.get("method").is_some() {
                notifications += 1;
            } else if message["id"] == json!(id) {
                return (message, notifications);
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> (Value, usize) {
        let id = self.send(method, params);
        self.wait(id)
    }

    fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(serde::Serialize)]
struct Figure {
    name: String,
    unit: String,
    median: f64,
    p95: f64,
    target: String,
    reference: Option<String>,
}

fn stats(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn initialize() -> Value {
    json!({"protocolVersion": 1, "clientCapabilities": {}})
}

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test` (no `--bench`) only the smoke run goes.
    let quick =
        std::env::args().any(|a| a == "--quick") || !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 3 } else { 30 };
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let config = root.path().join("config");
    let project = root.path().join("project");
    for dir in [&data, &config, &project] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut figures = Vec::new();

    // Process start: `true` is the machine's floor for spawning and reaping a process.
    let floor: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            Command::new("true").status().unwrap();
            ms(t.elapsed())
        })
        .collect();
    let (floor_median, _) = stats(floor);
    let init: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let mut agent = Agent::spawn(&data, &config);
            agent.request("initialize", initialize());
            ms(t.elapsed())
        })
        .collect();
    let (median, p95) = stats(init);
    figures.push(Figure {
        name: "spawn → initialize answered".into(),
        unit: "ms".into(),
        median,
        p95,
        target: "≤ 5 ms".into(),
        reference: Some(format!(
            "spawning `true`: {floor_median:.2} ms ({:.1}×)",
            median / floor_median
        )),
    });

    // session/new, and memory: idle after initialize, then per extra idle session.
    let mut agent = Agent::spawn(&data, &config);
    agent.request("initialize", initialize());
    std::thread::sleep(Duration::from_millis(100));
    let idle_kb = agent.rss_kb();
    let pings: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            agent.request("session/list", json!({"cwd": "/nonexistent"}));
            ms(t.elapsed())
        })
        .collect();
    let (ping_median, _) = stats(pings);
    let sessions = if quick { 5 } else { 100 };
    let mut new_times = Vec::new();
    let before_kb = agent.rss_kb();
    for _ in 0..sessions {
        let t = Instant::now();
        agent.request("session/new", json!({"cwd": project, "mcpServers": []}));
        new_times.push(ms(t.elapsed()));
    }
    std::thread::sleep(Duration::from_millis(100));
    let after_kb = agent.rss_kb();
    let (median, p95) = stats(new_times);
    figures.push(Figure {
        name: "session/new round trip".into(),
        unit: "ms".into(),
        median,
        p95,
        target: "≤ 5 ms".into(),
        reference: Some(format!(
            "a session/list round trip: {ping_median:.3} ms ({:.1}×)",
            median / ping_median
        )),
    });
    figures.push(Figure {
        name: "idle resident memory after initialize".into(),
        unit: "MB".into(),
        median: idle_kb as f64 / 1024.0,
        p95: idle_kb as f64 / 1024.0,
        target: "≤ 15 MB".into(),
        reference: None,
    });
    let per_session = after_kb.saturating_sub(before_kb) as f64 / sessions as f64;
    figures.push(Figure {
        name: format!("memory per additional idle session ({sessions} sessions)"),
        unit: "KB".into(),
        median: per_session,
        p95: per_session,
        target: "≤ 200 KB".into(),
        reference: None,
    });
    drop(agent);

    // Streaming: the scripted model streams N word chunks; the driver counts them arriving.
    let chunks = if quick { 2_000 } else { 100_000 };
    let script = root.path().join("script.json");
    let text: String = (0..chunks).map(|i| format!(" w{i}")).collect();
    std::fs::write(
        &script,
        json!({"turns": [[{"text": text}, {"usage": {"input": 1, "output": 1}}]]}).to_string(),
    )
    .unwrap();
    std::fs::write(
        project.join("tandem.json"),
        json!({"model": "bench/stream", "provider": {"bench": {"api": "scripted", "options": {"script": script}}}}).to_string(),
    )
    .unwrap();
    let mut agent = Agent::spawn(&data, &config);
    agent.request("initialize", initialize());
    let (session, _) = agent.request("session/new", json!({"cwd": project, "mcpServers": []}));
    let session = session["result"]["sessionId"].clone();
    let mut rates = Vec::new();
    for _ in 0..if quick { 1 } else { 5 } {
        let t = Instant::now();
        let (_, received) = agent.request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        );
        let elapsed = t.elapsed().as_secs_f64();
        rates.push(received as f64 / elapsed);
    }
    let (median, p95) = stats(rates);
    figures.push(Figure {
        name: format!("streaming throughput ({chunks} chunks, scripted model)"),
        unit: "chunks/s".into(),
        median,
        p95,
        target: "≥ 100,000 chunks/s".into(),
        reference: None,
    });
    let overhead_ms = 1000.0 / median;
    figures.push(Figure {
        name: "per-chunk cost, model token → agent_message_chunk (1 / throughput)".into(),
        unit: "ms".into(),
        median: overhead_ms,
        p95: overhead_ms,
        target: "≤ 0.2 ms median".into(),
        reference: None,
    });
    drop(agent);

    // session/load of a long session: written straight into the store, then replayed.
    let messages = if quick { 200 } else { 10_000 };
    let long = seed_long_session(&data, &project, messages);
    let loads: Vec<f64> = (0..if quick { 2 } else { 10 })
        .map(|_| {
            let mut agent = Agent::spawn(&data, &config);
            agent.request("initialize", initialize());
            let t = Instant::now();
            let (_, replayed) = agent.request(
                "session/load",
                json!({"sessionId": long, "cwd": project, "mcpServers": []}),
            );
            assert!(replayed >= messages, "the whole history was replayed");
            ms(t.elapsed())
        })
        .collect();
    let (median, p95) = stats(loads);
    figures.push(Figure {
        name: format!("session/load of {messages} messages (replay fully sent)"),
        unit: "ms".into(),
        median,
        p95,
        target: "≤ 250 ms".into(),
        reference: None,
    });

    figures.push(subagents_in_parallel(root.path(), &data, &config, quick));

    report(
        &figures,
        if quick {
            "results-smoke.json"
        } else {
            "results.json"
        },
    );
}

/// Wall time of N subagents (each making `calls` tool calls) delegated in one message, beside
/// the wall time of one: the ratio shows how well children run side by side.
fn subagents_in_parallel(root: &Path, data: &Path, config: &Path, quick: bool) -> Figure {
    let (many, calls) = if quick { (4, 3) } else { (100, 20) };
    let project = root.join("parallel");
    std::fs::create_dir_all(&project).unwrap();
    // Each call differs: three identical calls in a row would (rightly) stop for a loop check.
    let mut child_turns: Vec<Value> = (0..calls)
        .map(
            |i| json!([{"tool_call": {"name": "list", "input": {"ignore": [format!("skip{i}")]}}}]),
        )
        .collect();
    child_turns.push(json!([{"text": "child done"}]));
    let child_script = root.join("child.json");
    std::fs::write(&child_script, json!({"turns": child_turns}).to_string()).unwrap();
    let parent_script = |n: usize| {
        let calls: Vec<Value> = (0..n)
            .map(|i| json!({"tool_call": {"name": "task", "input": {"description": format!("job {i}"), "prompt": format!("job {i}"), "subagent_type": "general"}}}))
            .collect();
        json!({"turns": [calls, [{"text": "all done"}]]})
    };
    let time_for = |n: usize| {
        let script = root.join(format!("parent-{n}.json"));
        std::fs::write(&script, parent_script(n).to_string()).unwrap();
        std::fs::write(
            project.join("tandem.json"),
            json!({"model": "parent/p", "agent": {"general": {"model": "child/c"}},
                   "provider": {"parent": {"api": "scripted", "options": {"script": script}},
                                "child": {"api": "scripted", "options": {"script": child_script}}}})
            .to_string(),
        )
        .unwrap();
        let mut agent = Agent::spawn(data, config);
        agent.request("initialize", initialize());
        let (session, _) = agent.request("session/new", json!({"cwd": project, "mcpServers": []}));
        let t = Instant::now();
        let (answer, _) = agent.request("session/prompt", json!({"sessionId": session["result"]["sessionId"], "prompt": [{"type": "text", "text": "go"}]}));
        assert_eq!(answer["result"]["stopReason"], "end_turn", "{answer}");
        ms(t.elapsed())
    };
    let one = time_for(1);
    let all = time_for(many);
    Figure {
        name: format!("{many} subagents in parallel ({calls} tool calls each), wall time"),
        unit: "ms".into(),
        median: all,
        p95: all,
        target: "within 2× of one subagent's".into(),
        reference: Some(format!("one subagent: {one:.1} ms ({:.1}×)", all / one)),
    }
}

/// A session of `n` messages (user and assistant alternating, one text part each).
fn seed_long_session(data: &Path, project: &Path, n: usize) -> String {
    use tandem::id::{MessageId, PartId, SessionId};
    use tandem::message::{MessageInfo, Part, PartBody, Role, SessionInfo};
    let store = tandem::store::Store::open_in(data).unwrap();
    let id = SessionId::new();
    store
        .create_session(&SessionInfo {
            id: id.clone(),
            parent_id: None,
            cwd: project.to_owned(),
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
            id: MessageId::new(),
            session_id: id.clone(),
            role,
            created_at: i as i64,
            completed_at: Some(i as i64),
            agent: "build".into(),
            model: None,
            finish: None,
            usage: None,
            cost: None,
            error: None,
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
    id.to_string()
}

fn report(figures: &[Figure], file: &str) {
    println!("\n| figure | median | p95 | target | reference |\n|---|---|---|---|---|");
    for f in figures {
        println!(
            "| {} | {:.3} {} | {:.3} {} | {} | {} |",
            f.name,
            f.median,
            f.unit,
            f.p95,
            f.unit,
            f.target,
            f.reference.as_deref().unwrap_or("")
        );
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file);
    std::fs::write(&path, serde_json::to_string_pretty(figures).unwrap()).unwrap();
    println!("\nwritten to {}", path.display());
}
