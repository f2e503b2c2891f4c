//! `tandem import`: importing a Claude Code transcript of 5,000 messages (each answer a tool
//! call and its result) beside reading the file with `wc -l`, and `tandem import --list` over
//! 1,000 transcripts (copies of the real Claude Code 2.1.328 fixture) beside `ls -l` of their
//! folder.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::json;

use crate::Bench;
use crate::report::{Figure, median, ms};

/// Where Claude Code keeps `project`'s transcripts under `home`.
fn transcripts(home: &Path, project: &Path) -> PathBuf {
    let mangled: String = project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = home.join(".claude/projects").join(mangled);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A transcript of `messages` messages: prompts, each answered by a `Read` call and its result.
fn long_transcript(project: &Path, messages: usize) -> String {
    let mut lines = Vec::with_capacity(messages);
    let cwd = project.to_string_lossy();
    for n in 0..messages / 4 {
        let at = format!("2026-11-29T10:{:02}:{:02}.000Z", (n / 60) % 60, n % 60);
        let id = format!("toolu_{n}");
        lines.push(
            json!({"type": "user", "cwd": cwd, "sessionId": "big", "version": "2.1.328",
            "timestamp": at, "message": {"role": "user", "content": format!("Look at file {n}")}}),
        );
        lines.push(
            json!({"type": "assistant", "timestamp": at, "message": {"id": format!("msg_{n}"),
            "model": "claude-sonnet-4-5", "role": "assistant", "content": [{"type": "tool_use",
            "id": id, "name": "Read", "input": {"file_path": format!("{cwd}/f{n}.rs")}}],
            "usage": {"input_tokens": 100, "output_tokens": 20}}}),
        );
        lines.push(
            json!({"type": "user", "timestamp": at, "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id,
                         "content": "fn main() {}\n".repeat(20)}]}}),
        );
        lines.push(
            json!({"type": "assistant", "timestamp": at, "message": {"id": format!("msg_{n}b"),
            "model": "claude-sonnet-4-5", "role": "assistant",
            "content": [{"type": "text", "text": format!("File {n} holds an empty main.")}]}}),
        );
    }
    lines.iter().map(|l| l.to_string() + "\n").collect()
}

fn tandem(bench: &Bench, home: &Path, data: &Path, project: &Path, args: &[&str]) -> f64 {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(args)
        .env("HOME", home)
        .env("TANDEM_DATA_DIR", data)
        .env("TANDEM_CONFIG_DIR", &bench.config)
        .current_dir(project)
        .output()
        .unwrap();
    let took = ms(started.elapsed());
    assert!(out.status.success(), "tandem {args:?}: {out:?}");
    took
}

fn timed(program: &str, args: &[&str]) -> f64 {
    let started = Instant::now();
    let out = Command::new(program).args(args).output().unwrap();
    assert!(out.status.success());
    ms(started.elapsed())
}

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let (messages, files) = if bench.quick {
        (200, 20)
    } else {
        (5_000, 1_000)
    };
    let runs = if bench.quick { 2 } else { 5 };
    let project = bench.project("import");
    let home = bench.root.join("import-home");
    let dir = transcripts(&home, &project);
    let big = dir.join("big.jsonl");
    std::fs::write(&big, long_transcript(&project, messages)).unwrap();
    let (mut imported, mut read) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let data = bench.root.join(format!("import-data-{run}"));
        imported.push(tandem(bench, &home, &data, &project, &["import", "--all"]));
        read.push(timed("wc", &["-l", big.to_str().unwrap()]));
    }
    std::fs::remove_file(&big).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import/claude-code-2.1.328/projects/-tmp-tandem-fixture-project");
    let one = std::fs::read_dir(&fixture)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(one)
        .unwrap()
        .replace("/tmp/tandem-fixture-project", &project.to_string_lossy());
    for n in 0..files {
        std::fs::write(dir.join(format!("session-{n:04}.jsonl")), &text).unwrap();
    }
    let data = bench.root.join("import-list-data");
    let (mut listed, mut ls) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        listed.push(tandem(bench, &home, &data, &project, &["import", "--list"]));
        ls.push(timed("ls", &["-l", dir.to_str().unwrap()]));
    }
    let (read, ls) = (median(read), median(ls));
    let imported = Figure::from_samples(
        format!("`tandem import` of a {messages}-message Claude Code transcript (whole process)"),
        "ms",
        imported,
        "under 1 s",
    );
    let listed = Figure::from_samples(
        format!("`tandem import --list` over {files} Claude Code transcripts (whole process)"),
        "ms",
        listed,
        "under 500 ms",
    );
    vec![
        imported.beside(format!("`wc -l` of the file: {read:.1} ms")),
        listed.beside(format!("`ls -l` of the folder: {ls:.1} ms")),
    ]
}
