//! Criterion benchmarks for the tools' hot paths: the permission evaluator and bash splitting,
//! the edit matcher on a 10,000-line file and on large overlapping groups, a 20-hunk patch on
//! a 5,000-line file, and grep/glob on a large tree beside `rg` on the same tree in the same
//! run (ratios are what a shared machine can compare).
//!
//! `cargo bench --bench tools`; `TANDEM_BENCH_FILES` sets the tree size (default 20,000).

#[path = "common/tree.rs"]
mod tree;

use std::path::Path;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use tandem::config::Config;
use tandem::permission::{self, shell};
use tandem::tool::files::{matching, patch};
use tandem::tool::search;
use tree::{make_tree, rg_available};

fn permissions(c: &mut Criterion) {
    let config = Config::from_json_str(
        r#"{"permission": {"bash": {"*": "ask", "git status *": "allow", "git diff *": "allow",
            "git log *": "allow", "cargo test *": "allow", "cargo build *": "allow", "npm run *": "ask",
            "rm *": "deny", "curl *": "ask", "ls *": "allow", "cat *": "allow"},
            "edit": {"*": "allow", "*.lock": "deny", "secrets/*": "deny"}, "webfetch": "ask"}}"#,
    )
    .unwrap();
    let mut rules = permission::defaults();
    rules.extend(permission::from_config(config.permission.as_ref().unwrap()));
    let approvals: Vec<permission::Rule> = (0..30)
        .map(|i| permission::Rule::new("bash", &format!("tool{i} *"), permission::Action::Allow))
        .collect();
    c.bench_function("permission/evaluate 4 checks over 50 rules", |b| {
        b.iter(|| {
            for (perm, pattern) in [
                ("bash", "git status --short"),
                ("bash", "rm -rf target"),
                ("edit", "src/main.rs"),
                ("read", "app/.env"),
            ] {
                std::hint::black_box(permission::evaluate(perm, pattern, &[&rules, &approvals]));
            }
        })
    });
    c.bench_function("permission/split a chained bash line", |b| {
        b.iter(|| {
            shell::split_commands(std::hint::black_box(
                "git status && cargo test -q 2>&1 | tail -5; echo $(date)",
            ))
        })
    });
}

fn edit_matcher(c: &mut Criterion) {
    let content: String = (0..10_000)
        .map(|i| format!("    let value_{i} = compute({i}, \"text\");\n"))
        .collect();
    let exact = "    let value_9990 = compute(9990, \"text\");\n    let value_9991 = compute(9991, \"text\");";
    let shifted =
        "let value_9990 = compute(9990, \"text\");\nlet value_9991 = compute(9991, \"text\");";
    c.bench_function("edit/exact match near the end of 10k lines", |b| {
        b.iter(|| matching::find(&content, exact, "x", false).unwrap())
    });
    c.bench_function("edit/indentation-tolerant match in 10k lines", |b| {
        b.iter(|| matching::find(&content, shifted, "x", false).unwrap())
    });
    c.bench_function("edit/not found in 10k lines (every matcher runs)", |b| {
        b.iter(|| matching::find(&content, "no such line\nanywhere", "x", false).unwrap_err())
    });
    let trailing: String = content.replace(";\n", ";  \n");
    c.bench_function(
        "edit/line-trimmed match in 10k lines with trailing spaces",
        |b| b.iter(|| matching::find(&trailing, exact, "x", false).unwrap()),
    );
    // OpenCode's overlapping case: 8,192 identical (trimmed) lines, an oldString of 4,096 of
    // them, and the one unique block at the end; every window of the group shares one text.
    let token = "x".repeat(16);
    let repeated = format!(" {token} ");
    let overlapping = format!("{}\n\t{token}\t", vec![repeated.as_str(); 8_192].join("\n"));
    let window = vec![token.as_str(); 4_096].join("\n");
    c.bench_function(
        "edit/overlapping groups: 4,096-line oldString over 8,193 lines",
        |b| b.iter(|| matching::find(&overlapping, &window, "changed", false).unwrap()),
    );
    // A block-anchored oldString whose middle line differs slightly, near the end of 10k lines.
    let anchored = "    let value_9990 = compute(9990, \"text\");\n    let value_9991 = compute(9991, \"txt\");\n    let value_9992 = compute(9992, \"text\");";
    c.bench_function("edit/block-anchor match in 10k lines", |b| {
        b.iter(|| matching::find(&content, anchored, "x", false).unwrap())
    });
}

/// A 20-hunk patch (each with three lines of context) on a 5,000-line file.
fn patch_hunks(c: &mut Criterion) {
    let body: String = (0..5_000)
        .map(|i| format!("    line {i}: value = compute({i});\n"))
        .collect();
    let mut text = String::from("*** Begin Patch\n*** Update File: f.rs\n");
    for h in 0..20 {
        let at = 100 + h * 240;
        text.push_str("@@\n");
        for i in at - 3..at {
            text.push_str(&format!("     line {i}: value = compute({i});\n"));
        }
        text.push_str(&format!("-    line {at}: value = compute({at});\n"));
        text.push_str(&format!("+    line {at}: value = compute({at}) + 1;\n"));
        for i in at + 1..at + 4 {
            text.push_str(&format!("     line {i}: value = compute({i});\n"));
        }
    }
    text.push_str("*** End Patch\n");
    let Some(patch::FileOp::Update { hunks, .. }) = patch::parse(&text).unwrap().pop() else {
        panic!("one update")
    };
    assert_eq!(hunks.len(), 20);
    c.bench_function("apply_patch/20 hunks on a 5,000-line file", |b| {
        b.iter(|| patch::apply_hunks(&body, &hunks, "f.rs").unwrap())
    });
}

fn rg(root: &Path, args: &[&str]) {
    let status = Command::new("rg")
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    std::hint::black_box(status.stdout.len());
}

fn search_tree(c: &mut Criterion) {
    let n: usize = std::env::var("TANDEM_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let tree = tempfile::tempdir().unwrap();
    make_tree(tree.path(), n);
    let root = tree.path().to_owned();
    let with_rg = rg_available();
    if !with_rg {
        eprintln!(
            "note: `rg` is not installed (apt-get install ripgrep); only Tandem's side is measured"
        );
    }
    let mut group = c.benchmark_group(format!("search/{n} files"));
    group.sample_size(10);
    let matcher = grep_regex::RegexMatcher::new_line_matcher("needle_here").unwrap();
    group.bench_function("tandem grep", |b| {
        b.iter(|| search::grep(&root, &matcher, None, &|_| true))
    });
    if with_rg {
        group.bench_function("rg grep", |b| {
            b.iter(|| rg(&root, &["-n", "needle_here", "."]))
        });
    }
    let glob = search::glob_matcher("**/f1*.rs").unwrap();
    group.bench_function("tandem glob", |b| {
        b.iter(|| search::walk_files(&root, |rel| glob.is_match(rel), &|_| true))
    });
    if with_rg {
        group.bench_function("rg glob", |b| {
            b.iter(|| rg(&root, &["--files", "--glob", "**/f1*.rs"]))
        });
    }
    group.finish();
}

/// The sandbox's added cost per command: `/bin/true` spawned and waited for as `bash` runs
/// commands, with the policy built into a Landlock ruleset (and the shield's namespace and
/// read-only mounts over the project's git hooks and config) each time, beside the same spawn
/// without it.
fn sandbox(c: &mut Criterion) {
    use tandem::sandbox::{Policy, Prepared, support};
    if !support().is_available() {
        eprintln!("no Landlock here: sandbox bench skipped");
        return;
    }
    // A git project: its hooks and config are kept read-only (the shield's mounts), as in use.
    let project = tempfile::tempdir().unwrap();
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(project.path())
        .status()
        .unwrap();
    let policy = Policy::resolve(None, project.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let run = |sandboxed: bool| {
        runtime.block_on(async {
            let mut command = tokio::process::Command::new("/bin/true");
            let prepared = sandboxed.then(|| Prepared::new(&policy).unwrap());
            if let Some(prepared) = &prepared {
                prepared.apply(&mut command);
            }
            command.status().await.unwrap();
        })
    };
    let mut group = c.benchmark_group("sandbox");
    group.bench_function("spawn /bin/true", |b| b.iter(|| run(false)));
    group.bench_function("spawn /bin/true in the sandbox", |b| b.iter(|| run(true)));
    group.finish();
}

criterion_group!(
    benches,
    permissions,
    edit_matcher,
    patch_hunks,
    search_tree,
    sandbox
);
criterion_main!(benches);
