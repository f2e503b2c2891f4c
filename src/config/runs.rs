//! Which files inside a project a command line would run: the words that name a file there
//! (`./hook.sh`, `python tools/check.py`), and the file a task runner reads (`make` reads the
//! Makefile). What the person trusts covers these, by content.

use std::path::{Path, PathBuf};

/// The files inside `project` that `command` names or whose runner reads, real paths, sorted.
pub fn files_run_by(command: &str, project: &Path) -> Vec<PathBuf> {
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_owned());
    let mut found = Vec::new();
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || "'\";|&()<>`=$".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let mut add = |candidate: PathBuf| {
        if let Ok(real) = std::fs::canonicalize(&candidate)
            && real.starts_with(&project)
            && real.is_file()
            && !found.contains(&real)
        {
            found.push(real);
        }
    };
    for word in &words {
        let word = word.strip_prefix("file:").unwrap_or(word);
        if word.contains('/') || word.contains('.') {
            add(project.join(word));
        }
        let runner_reads: &[&str] = match Path::new(word).file_name().and_then(|n| n.to_str()) {
            Some("make" | "gmake") => &["Makefile", "makefile", "GNUmakefile"],
            Some("just") => &["justfile", "Justfile", ".justfile"],
            Some("npm" | "pnpm" | "yarn" | "bun" | "npx") => &["package.json"],
            Some("task") => &["Taskfile.yml", "Taskfile.yaml"],
            Some("cargo") => &["Cargo.toml", "build.rs", ".cargo/config.toml"],
            Some("rake") => &["Rakefile"],
            Some("tox" | "nox") => &["tox.ini", "noxfile.py"],
            _ => &[],
        };
        for file in runner_reads {
            add(project.join(file));
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_and_the_files_runners_read_are_found_inside_the_project_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::write(root.join("hooks/stop.sh"), "echo").unwrap();
        std::fs::write(root.join("Makefile"), "lint:\n\techo").unwrap();
        std::fs::write(root.join("check.py"), "").unwrap();
        assert_eq!(
            files_run_by("sh hooks/stop.sh && make lint", &root),
            [root.join("Makefile"), root.join("hooks/stop.sh")]
        );
        assert_eq!(
            files_run_by("python3 -c 'x' ./check.py", &root),
            [root.join("check.py")]
        );
        assert!(files_run_by("cat /etc/passwd ../outside.sh", &root).is_empty());
    }
}
