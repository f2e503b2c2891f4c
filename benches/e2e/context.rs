//! Long-session figures: how much of each request a provider can serve from its prompt cache
//! (Anthropic breakpoints, OpenAI prefixes over Chat Completions and the Responses API; with
//! caching off beside it; across a compaction),
//! how long building the request for a 10,000-message session with a compaction boundary takes,
//! and what a compaction costs beyond its model call.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};

use crate::Bench;
use crate::agent::{Agent, use_model};
use crate::recording_model::{Answer, RecordingModel, Wire};
use crate::report::{Figure, median, ms};

/// The model's window in these runs: usable = 100,000 − 4,096.
const USABLE: u64 = 95_904;

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let steps = if bench.quick { 10 } else { 40 };
    let mut figures = Vec::new();
    for wire in [Wire::Anthropic, Wire::OpenAi, Wire::Responses] {
        for compact in [false, true] {
            let on = share(bench, wire, true, compact, steps);
            let off = share(bench, wire, false, compact, steps);
            let name = format!(
                "cacheable share of input tokens, {} format, {steps} steps{}",
                match wire {
                    Wire::Anthropic => "Anthropic",
                    Wire::OpenAi => "OpenAI",
                    Wire::Responses => "OpenAI Responses",
                },
                if compact { ", across a compaction" } else { "" }
            );
            let target = if compact { "≥ 90%" } else { "≥ 95%" };
            figures.push(
                Figure::single(name, "%", on, target)
                    .beside(format!("caching hints off: {off:.1}%")),
            );
        }
    }
    figures.push(request_build(bench));
    figures.push(compaction_overhead(bench, steps));
    figures
}

fn project(
    bench: &Bench,
    name: &str,
    model: &RecordingModel,
    wire: Wire,
    cache: bool,
) -> std::path::PathBuf {
    let project = bench.project(name);
    for n in 0..10 {
        let text = format!(
            "// file {n}\n{}",
            "let value = compute(input, options);\n".repeat(50)
        );
        std::fs::write(project.join(format!("f{n}.rs")), text).unwrap();
    }
    let api = match wire {
        Wire::Anthropic => "anthropic",
        Wire::OpenAi => "openai",
        Wire::Responses => "responses",
    };
    use_model(
        &project,
        "m/model",
        json!({"m": {"api": api, "options": {"baseURL": model.base_url, "apiKey": "k",
            "cache": cache},
            "models": {"model": {"limit": {"context": 100_000, "output": 4_096}}}}}),
        json!({"permission": {"*": "allow"}}),
    );
    project
}

fn is_compaction(body: &Value) -> bool {
    body.to_string().contains("anchored summary")
}

/// One prompt of `steps` tool steps (a compaction after half of them, when `compact`); the
/// token-weighted share of every request after the first that the cache can serve.
fn share(bench: &Bench, wire: Wire, cache: bool, compact: bool, steps: usize) -> f64 {
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let model = RecordingModel::start(wire, move |body| {
        if is_compaction(body) {
            return Answer::Text {
                text: "## Goal\n- read the files\n## Progress\n### Done\n- half of them".into(),
                prompt_tokens: 1_000,
            };
        }
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n >= steps {
            return Answer::Text {
                text: "All read.".into(),
                prompt_tokens: 1_000,
            };
        }
        let full = compact && n == steps / 2;
        Answer::Tool {
            name: "read".into(),
            input: json!({"filePath": format!("f{}.rs", n % 10)}),
            prompt_tokens: if full { USABLE } else { 1_000 },
        }
    });
    let name = format!("cache-{wire:?}-{cache}-{compact}");
    let project = project(bench, &name, &model, wire, cache);
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let session = agent.new_session(&project);
    agent.prompt_observing(&session, |_| {});
    let bodies = model.bodies();
    assert_eq!(
        bodies.iter().filter(|b| is_compaction(b)).count(),
        usize::from(compact),
        "{name}"
    );
    cacheable_share(&bodies, wire)
}

/// A request as the cache sees it: its blocks in cache order (tools, system, messages) and
/// the prefix lengths that end at a breakpoint.
fn blocks(body: &Value, wire: Wire) -> (Vec<String>, Vec<usize>) {
    let mut blocks = Vec::new();
    let mut marks = Vec::new();
    let mut push = |value: &Value, prefix: &str, blocks: &mut Vec<String>| {
        let mut value = value.clone();
        let marked = value
            .as_object_mut()
            .and_then(|o| o.remove("cache_control"))
            .is_some();
        blocks.push(format!("{prefix}{value}"));
        if marked {
            marks.push(blocks.len());
        }
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        push(tool, "tool:", &mut blocks);
    }
    for system in body["system"].as_array().into_iter().flatten() {
        push(system, "system:", &mut blocks);
    }
    if let Some(instructions) = body.get("instructions") {
        push(instructions, "instructions:", &mut blocks);
    }
    for item in body["input"].as_array().into_iter().flatten() {
        push(item, "", &mut blocks);
    }
    for message in body["messages"].as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or_default();
        match (wire, message["content"].as_array()) {
            (Wire::Anthropic, Some(content)) => {
                for block in content {
                    push(block, &format!("{role}:"), &mut blocks);
                }
            }
            _ => push(message, "", &mut blocks),
        }
    }
    if wire != Wire::Anthropic {
        // OpenAI caches any prefix (of at least 1,024 tokens, in 128-token steps).
        marks = (1..=blocks.len()).collect();
    }
    (blocks, marks)
}

fn tokens(blocks: &[String]) -> u64 {
    blocks.iter().map(|b| b.len() as u64).sum::<u64>() / 4
}

/// Tokens of each request after the first that an earlier request left in the cache, over
/// all their input tokens. Anthropic reads a cached prefix only at a breakpoint of the earlier
/// request, found from a breakpoint of this one at most 20 blocks further on.
fn cacheable_share(bodies: &[Value], wire: Wire) -> f64 {
    let seen: Vec<(Vec<String>, Vec<usize>)> = bodies.iter().map(|b| blocks(b, wire)).collect();
    let (mut cached, mut total) = (0u64, 0u64);
    for (j, (blocks_j, marks_j)) in seen.iter().enumerate().skip(1) {
        total += tokens(blocks_j);
        let mut best = 0;
        for (blocks_i, marks_i) in &seen[..j] {
            for &end in marks_i {
                let reachable =
                    wire != Wire::Anthropic || marks_j.iter().any(|&p| p >= end && p - end <= 20);
                if end <= blocks_j.len() && reachable && blocks_i[..end] == blocks_j[..end] {
                    best = best.max(tokens(&blocks_j[..end]));
                }
            }
        }
        cached += best;
    }
    100.0 * cached as f64 / total.max(1) as f64
}

/// From `session/prompt` to the request reaching the model, for a session of 10,000 stored
/// messages whose last compaction kept 10, beside the same for a 2-message session.
fn request_build(bench: &Bench) -> Figure {
    let model = RecordingModel::start(Wire::OpenAi, |_| Answer::Text {
        text: "ok".into(),
        prompt_tokens: 1_000,
    });
    let project = project(bench, "build", &model, Wire::OpenAi, true);
    let messages = if bench.quick { 500 } else { 10_000 };
    let long = seed(&bench.data, &project, messages);
    let short = seed(&bench.data, &project, 2);
    let runs = if bench.quick { 3 } else { 20 };
    let time = |session: &str| -> Vec<f64> {
        let mut agent = Agent::ready(&bench.data, &bench.config);
        let session = json!(session);
        agent.request(
            "session/resume",
            json!({"sessionId": session, "cwd": project, "mcpServers": []}),
        );
        (0..runs)
            .map(|_| {
                let before = model.count();
                let sent = Instant::now();
                agent.prompt_observing(&session, |_| {});
                ms(model.timing(before).0 - sent)
            })
            .collect()
    };
    let long_times = time(&long);
    let short_times = time(&short);
    let reference = median(short_times);
    Figure::from_samples(
        format!(
            "session/prompt → request at the model, {messages} messages with a compaction boundary"
        ),
        "ms",
        long_times,
        "≤ 5 ms",
    )
    .beside(format!("a 2-message session: {reference:.2} ms"))
}

/// `/compact` round trips minus the model's own time, on a session of `steps` tool steps
/// (each after one more short turn).
fn compaction_overhead(bench: &Bench, steps: usize) -> Figure {
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let model = RecordingModel::start(Wire::OpenAi, move |body| {
        if is_compaction(body) {
            return Answer::Text {
                text: "## Goal\n- read the files".into(),
                prompt_tokens: 2_000,
            };
        }
        let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if n >= steps {
            return Answer::Text {
                text: "Done.".into(),
                prompt_tokens: 1_000,
            };
        }
        Answer::Tool {
            name: "read".into(),
            input: json!({"filePath": format!("f{}.rs", n % 10)}),
            prompt_tokens: 1_000,
        }
    });
    let project = project(bench, "overhead", &model, Wire::OpenAi, true);
    let mut agent = Agent::ready(&bench.data, &bench.config);
    let session = agent.new_session(&project);
    agent.prompt_observing(&session, |_| {});
    let runs = if bench.quick { 3 } else { 20 };
    let mut model_time = Vec::new();
    let samples = (0..runs)
        .map(|_| {
            // A turn since the last compaction, so there is something to condense.
            agent.prompt_observing(&session, |_| {});
            let before = model.count();
            let sent = Instant::now();
            let id = agent.send(
                "session/prompt",
                json!({"sessionId": session, "prompt": [{"type": "text", "text": "/compact"}]}),
            );
            agent.wait_observing(id, |_| {});
            let total = sent.elapsed();
            let (at, answered) = model.timing(before);
            let in_model = answered - at;
            model_time.push(ms(in_model));
            ms(total.saturating_sub(in_model))
        })
        .collect();
    Figure::from_samples(
        format!("/compact beyond the model call ({steps}-step session)"),
        "ms",
        samples,
        "≤ 10 ms",
    )
    .beside(format!(
        "the model server's own time: {:.2} ms",
        median(model_time)
    ))
}

/// A stored session of `n` messages (a summary with a kept tail before its last 10).
fn seed(data: &Path, project: &Path, n: usize) -> String {
    use tandem::id::{MessageId, PartId, SessionId};
    use tandem::message::{
        Compaction, FinishReason, MessageInfo, Part, PartBody, Role, SessionInfo,
    };
    let store = tandem::store::Store::open_in(data).unwrap();
    let id = SessionId::new();
    store
        .create_session(&SessionInfo {
            id: id.clone(),
            parent_id: None,
            cwd: project.to_owned(),
            extra_roots: Vec::new(),
            title: "long".into(),
            created_at: 1,
            updated_at: 1,
        })
        .unwrap();
    let boundary = n.saturating_sub(10);
    let mut tail_start = None;
    for i in 0..n {
        let summary = n > 2 && i == boundary;
        let role = if i % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        let role = if summary { Role::Assistant } else { role };
        let message_id = MessageId::new();
        if i + 10 == boundary + 4 {
            tail_start = Some(message_id.clone());
        }
        let info = MessageInfo {
            id: message_id.clone(),
            completed_at: Some(i as i64),
            finish: (role == Role::Assistant).then_some(FinishReason::Stop),
            summary,
            ..MessageInfo::new(id.clone(), role, "build", i as i64)
        };
        store.put_message(&info).unwrap();
        let mut bodies = vec![PartBody::Text {
            text: format!("message {i}: {}", "some words of conversation ".repeat(8)),
            synthetic: false,
        }];
        if summary {
            bodies.insert(
                0,
                PartBody::Compaction(Compaction {
                    auto: true,
                    overflow: false,
                    tail_start: tail_start.clone(),
                    tokens_before: 90_000,
                    tokens_after: 5_000,
                }),
            );
        }
        for body in bodies {
            store
                .put_part(&Part {
                    id: PartId::new(),
                    message_id: message_id.clone(),
                    session_id: id.clone(),
                    body,
                })
                .unwrap();
        }
    }
    store.flush().unwrap();
    id.0
}
