//! Where Tandem keeps things on disk (the XDG config and data directories, with the `TANDEM_*`
//! overrides) and where a path really leads (`real.rs`, which alone reads the disk).

mod real;
pub mod roots;
pub use real::real_path;

use std::path::{Component, Path, PathBuf};

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

fn xdg(var: &str, fallback: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(dir) if !dir.is_empty() && PathBuf::from(&dir).is_absolute() => PathBuf::from(dir),
        _ => home().join(fallback),
    }
}

/// The person's home folder, when `HOME` names one.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `$XDG_CONFIG_HOME/tandem` (default `~/.config/tandem`), or `TANDEM_CONFIG_DIR`.
pub fn config_dir() -> PathBuf {
    match std::env::var_os("TANDEM_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => xdg("XDG_CONFIG_HOME", ".config").join("tandem"),
    }
}

/// The person's own skill folders, in order of precedence: Tandem's, then those other agents
/// share (`~/.agents/skills`) or keep (`~/.claude/skills`).
pub fn person_skill_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![config_dir().join("skills")];
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        dirs.push(home.join(".agents/skills"));
        dirs.push(home.join(".claude/skills"));
    }
    dirs
}

/// `$XDG_DATA_HOME/tandem` (default `~/.local/share/tandem`), or `TANDEM_DATA_DIR`.
pub fn data_dir() -> PathBuf {
    match std::env::var_os("TANDEM_DATA_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => xdg("XDG_DATA_HOME", ".local/share").join("tandem"),
    }
}

/// `path` against `base`, with `.` and `..` resolved lexically.
pub fn resolve_in(base: &Path, path: &str) -> PathBuf {
    let joined = base.join(path);
    let mut resolved = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            other => resolved.push(other),
        }
    }
    resolved
}

/// `path` relative to `base` when inside it, else as given.
pub fn relative_to(base: &Path, path: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// A folder name for `path` that is readable and distinct: its last component (cut to 40 safe
/// characters) and `hash`, the caller's hash of the whole path.
pub fn folder_name(path: &Path, hash: &str) -> String {
    let name: String = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(40)
        .collect();
    format!("{name}-{hash}")
}
