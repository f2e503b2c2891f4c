//! The search benchmarks' shared fixture: a tree of small source files, and whether `rg` is
//! there to measure beside.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes `n` small source files in nested directories under `root`; one in 1,000 holds the
/// needle (`fn needle_here`).
pub fn make_tree(root: &Path, n: usize) {
    for i in 0..n {
        let sub: PathBuf = root.join(format!("d{}/e{}", i % 100, i % 7));
        std::fs::create_dir_all(&sub).unwrap();
        let body = if i % 1000 == 0 {
            "fn needle_here() {}\n"
        } else {
            "fn ordinary() {}\n"
        };
        std::fs::write(
            sub.join(format!("f{i}.rs")),
            format!("// file {i}\n{body}{}", "let x = 1;\n".repeat(20)),
        )
        .unwrap();
    }
}

pub fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}
