//! Streaming: throughput of one session (the scripted model streams as fast as it can), and
//! the latency a token adds on its way from the model's socket to the editor's pipe.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::Bench;
use crate::agent::{Agent, scripted, use_model};
use crate::mock_sse::PacedModel;
use crate::report::{Figure, median, ms};

pub fn figures(bench: &Bench) -> Vec<Figure> {
    vec![throughput(bench), token_latency(bench)]
}

fn throughput(bench: &Bench) -> Figure {
    let project = bench.project("streaming");
    let chunks = if bench.quick { 2_000 } else { 100_000 };
    let script = bench.root.join("stream.json");
    let text: String = (0..chunks).map(|i| format!(" w{i}")).collect();
    std::fs::write(
        &script,
        json!({"turns": [[{"text": text}, {"usage": {"input": 1, "output": 1}}]]}).to_string(),
    )
    .unwrap();
    use_model(
        &project,
        "bench/stream",
        json!({"bench": scripted(&script)}),
        json!({}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let session = agent.new_session(&project);
    let rates = (0..if bench.quick { 1 } else { 5 })
        .map(|_| {
            let t = Instant::now();
            let mut received = 0usize;
            agent.prompt_observing(&session, |_| received += 1);
            received as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    let floor = cat_throughput(chunks);
    let figure = Figure::from_samples(
        format!("streaming throughput ({chunks} chunks, scripted model)"),
        "chunks/s",
        rates,
        "≥ 100,000 chunks/s",
    );
    let share = figure.median / floor;
    figure.beside(format!(
        "the same number of update-sized lines through `cat`: {floor:.0} lines/s ({share:.2}×)"
    ))
}

/// Lines per second `cat` passes from a writer thread to this one (each line the size of an
/// `agent_message_chunk` update).
fn cat_throughput(lines: usize) -> f64 {
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = std::io::BufWriter::new(cat.stdin.take().unwrap());
    let mut stdout = BufReader::new(cat.stdout.take().unwrap());
    let t = Instant::now();
    let writer = std::thread::spawn(move || {
        for i in 0..lines {
            writeln!(
                stdin,
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"01M81M933R3284KYD74GFXV0HA","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":" w{i}"}},"messageId":"01M81M9377KDVMH4RQ8AW0RXFJ"}}}}}}"#
            )
            .unwrap();
        }
    });
    let mut line = String::new();
    for _ in 0..lines {
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    let rate = lines as f64 / t.elapsed().as_secs_f64();
    writer.join().unwrap();
    let _ = cat.wait();
    rate
}

/// Tokens come from an OpenAI-compatible server on 127.0.0.1, one per millisecond, so each
/// crosses an idle Tandem: socket → SSE parser → session → ACP line on the pipe. The
/// reference is a line's round trip through `cat` (two pipe hops and two wake-ups).
fn token_latency(bench: &Bench) -> Figure {
    let tokens = if bench.quick { 50 } else { 500 };
    let model = PacedModel::start(tokens, Duration::from_millis(1));
    let project = bench.project("latency");
    use_model(
        &project,
        "paced/m",
        json!({"paced": {"api": "openai", "options": {"baseURL": model.base_url, "apiKey": "bench"}}}),
        json!({}),
    );
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let session = agent.new_session(&project);
    let mut overheads = Vec::new();
    for _ in 0..if bench.quick { 1 } else { 4 } {
        let mut received = vec![None; tokens];
        agent.prompt_observing(&session, |line| {
            let now = Instant::now();
            if let Some(i) = token_index(line) {
                received[i] = Some(now);
            }
        });
        let sent = model.sent.lock().unwrap().clone();
        assert_eq!(sent.len(), tokens, "the model sent every token");
        for (sent, received) in sent.iter().zip(&received) {
            let received = received.expect("every token reached the editor");
            overheads.push(ms(received.duration_since(*sent)));
        }
    }
    let floor = cat_round_trip(if bench.quick { 50 } else { 500 });
    let figure = Figure::from_samples(
        format!("model token → agent_message_chunk on the pipe ({tokens} tokens, 1 ms apart)"),
        "ms",
        overheads,
        "≤ 0.2 ms median",
    );
    let ratio = figure.median / floor;
    figure.beside(format!(
        "a line's round trip through `cat`: {floor:.3} ms ({ratio:.1}×)"
    ))
}

/// The token number of an `agent_message_chunk` line ("w17 " → 17).
fn token_index(line: &str) -> Option<usize> {
    if !line.contains(r#""sessionUpdate":"agent_message_chunk""#) {
        return None;
    }
    let start = line.find(r#""text":"w"#)? + r#""text":"w"#.len();
    let digits: String = line[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Median time for a line to go through `cat` and back.
fn cat_round_trip(lines: usize) -> f64 {
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = cat.stdin.take().unwrap();
    let mut stdout = BufReader::new(cat.stdout.take().unwrap());
    let mut line = String::new();
    let samples = (0..lines)
        .map(|i| {
            std::thread::sleep(Duration::from_millis(1));
            let t = Instant::now();
            writeln!(stdin, "line {i}").unwrap();
            stdin.flush().unwrap();
            line.clear();
            stdout.read_line(&mut line).unwrap();
            ms(t.elapsed())
        })
        .collect();
    drop(stdin);
    let _ = cat.wait();
    median(samples)
}
