//! Worktrees for isolated subagents: making one from a repository of 10,000 files (with an
//! uncommitted change) beside plain `git worktree add` of the same commit, and merging 100
//! changed files back into the caller's files.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::Bench;
use crate::report::{Figure, median, ms};

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(status.status.success(), "git {args:?}: {status:?}");
}

pub fn figures(bench: &Bench) -> Vec<Figure> {
    let files = if bench.quick { 300 } else { 10_000 };
    let runs = if bench.quick { 2 } else { 5 };
    let repo = bench.project("worktrees");
    crate::tree::make_tree(&repo, files);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "start"]);
    std::fs::write(repo.join("d0/e0/f0.rs"), "// changed, not committed\n").unwrap();
    // SAFETY: the driver runs one figure group at a time and this one starts no thread before
    // it; nothing else reads the environment now.
    unsafe { std::env::set_var("TANDEM_DATA_DIR", &bench.data) };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (mut made, mut plain, mut merged) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let started = Instant::now();
        let worktree = runtime
            .block_on(tandem::worktree::create(&repo, &format!("bench{run}")))
            .unwrap();
        made.push(ms(started.elapsed()));
        let reference = bench.root.join(format!("plain{run}"));
        let started = Instant::now();
        git(
            &repo,
            &[
                "worktree",
                "add",
                "-q",
                "--detach",
                reference.to_str().unwrap(),
                "HEAD",
            ],
        );
        plain.push(ms(started.elapsed()));
        git(
            &repo,
            &["worktree", "remove", "--force", reference.to_str().unwrap()],
        );
        for i in (1..files).step_by(files / 100).take(100) {
            let file = worktree
                .path
                .join(format!("d{}/e{}/f{i}.rs", i % 100, i % 7));
            std::fs::write(file, format!("// changed by the child, run {run}\n")).unwrap();
        }
        let started = Instant::now();
        let merge = runtime
            .block_on(tandem::worktree::merge_back(&worktree))
            .unwrap();
        let tandem::worktree::Merged::Clean(plan) = merge else {
            panic!("the bench's merge did not come out clean");
        };
        runtime.block_on(plan.apply()).unwrap();
        merged.push(ms(started.elapsed()));
        runtime
            .block_on(tandem::worktree::remove(&worktree, false))
            .unwrap();
        git(&repo, &["checkout", "-q", "--", "."]);
        std::fs::write(repo.join("d0/e0/f0.rs"), "// changed, not committed\n").unwrap();
    }
    let plain = median(plain);
    let made = Figure::from_samples(
        format!("worktree for an isolated child ({files} files, one uncommitted change)"),
        "ms",
        made,
        "under 1 s",
    );
    let ratio = made.median / plain;
    vec![
        made.beside(format!(
            "plain `git worktree add`: {plain:.1} ms ({ratio:.2}×)"
        )),
        Figure::from_samples(
            format!("merging a child's 100 changed files back ({files}-file repository)"),
            "ms",
            merged,
            "under 1 s",
        ),
    ]
}
