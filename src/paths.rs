//! Where Tandem keeps things on disk: the XDG config and data directories, with the
//! `TANDEM_*` overrides. Pure path arithmetic; nothing here creates or reads files.

use std::path::PathBuf;

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

/// `$XDG_CONFIG_HOME/tandem` (default `~/.config/tandem`), or `TANDEM_CONFIG_DIR`.
pub fn config_dir() -> PathBuf {
    match std::env::var_os("TANDEM_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => xdg("XDG_CONFIG_HOME", ".config").join("tandem"),
    }
}

/// `$XDG_DATA_HOME/tandem` (default `~/.local/share/tandem`), or `TANDEM_DATA_DIR`.
pub fn data_dir() -> PathBuf {
    match std::env::var_os("TANDEM_DATA_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => xdg("XDG_DATA_HOME", ".local/share").join("tandem"),
    }
}
