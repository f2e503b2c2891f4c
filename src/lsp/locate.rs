//! Finding what a project uses: a program on `PATH`, in the project's `node_modules/.bin` or
//! its Python virtualenv, and the folder a file's marker files (Cargo.toml, package.json…)
//! make its root.

use std::path::{Path, PathBuf};

use crate::config::Standing;

/// Where `program` is: as given when it is a path, else where the person's environment finds
/// it (`$VIRTUAL_ENV/bin`, then `PATH`), and only then the project's own `node_modules/.bin`
/// and virtualenvs (from `from` up to `top`), and those only when the person trusted the
/// folder with that very file (`standing`).
pub fn program(program: &str, from: &Path, top: &Path, standing: &Standing) -> Option<PathBuf> {
    if program.contains('/') {
        let path = crate::paths::resolve_in(top, program);
        return is_executable(&path).then_some(path);
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        dirs.push(PathBuf::from(venv).join("bin"));
    }
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    let mine = dirs
        .into_iter()
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate));
    if mine.is_some() {
        return mine;
    }
    for dir in from.ancestors() {
        for local in ["node_modules/.bin", ".venv/bin", "venv/bin"] {
            let candidate = dir.join(local).join(program);
            if is_executable(&candidate) && standing.allows_program(&candidate) {
                return Some(candidate);
            }
        }
        if dir == top || !dir.starts_with(top) {
            break;
        }
    }
    None
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The nearest folder above `file` (up to `top`, when `file` is inside it) holding one of
/// `markers`; None when none does.
pub fn root(file: &Path, markers: &[String], top: &Path) -> Option<PathBuf> {
    let start = file.parent()?;
    for dir in start.ancestors() {
        if markers.iter().any(|m| dir.join(m).exists()) {
            return Some(dir.to_owned());
        }
        if dir == top {
            break;
        }
    }
    None
}

/// A file's extension with its dot, lowercase (`.py`); empty when it has none.
pub fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_lowercase()))
        .unwrap_or_default()
}

/// `py` and `.py` alike, as `.py`.
pub fn dotted(extension: &str) -> String {
    if extension.starts_with('.') {
        extension.to_lowercase()
    } else {
        format!(".{}", extension.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_marker_is_the_root_and_the_project_bounds_the_search() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("p");
        std::fs::create_dir_all(top.join("a/b")).unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        let markers = vec!["Cargo.toml".to_owned()];
        assert_eq!(root(&top.join("a/b/x.rs"), &markers, &top), None);
        std::fs::write(top.join("a/Cargo.toml"), "").unwrap();
        assert_eq!(
            root(&top.join("a/b/x.rs"), &markers, &top),
            Some(top.join("a"))
        );
    }

    #[test]
    fn a_projects_own_programs_run_only_when_trusted_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        let tool = bin.join("some-language-server-xyz");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let find = |standing: &Standing| {
            program(
                "some-language-server-xyz",
                &dir.path().join("src"),
                dir.path(),
                standing,
            )
        };
        assert_eq!(find(&Standing::Untrusted), None);
        let real = std::fs::canonicalize(&tool).unwrap();
        let trusted = Standing::Trusted {
            programs: vec![(real.clone(), crate::config::digest_of(&real).unwrap())],
        };
        assert_eq!(find(&trusted), Some(tool.clone()));
        std::fs::write(&tool, "#!/bin/sh\necho changed\n").unwrap();
        assert_eq!(find(&trusted), None);
        let none = program("no-such-program-xyz", dir.path(), dir.path(), &trusted);
        assert_eq!(none, None);
        assert_eq!(extension(Path::new("a/B.PY")), ".py");
    }
}
