//! Finding, reading and merging `tandem.json` files: global, then the workspace's other roots,
//! then the project, then `TANDEM_CONFIG`. Each file is checked on its own so errors and
//! warnings name it.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_json::Value;

use super::Config;
use super::restrict::{self, Brought, BroughtKind};
use super::standing::Standing;
use crate::paths;

/// A config file that cannot be used; the message names the file, the key and what was wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("config file {path} is not valid JSON (comments are allowed): {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("config file {path}: key `{key}`: {message}")]
    Type {
        path: PathBuf,
        key: String,
        message: String,
    },
}

/// The merged configuration and what loading it noticed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedConfig {
    pub config: Config,
    /// The files that were read, in the order applied.
    pub sources: Vec<PathBuf>,
    /// Unknown keys, as `file: key` lines (also logged).
    pub warnings: Vec<String>,
    /// The folder's standing this config was loaded under.
    pub standing: Standing,
    /// What the folder's own config would have started or widened and was left off, because
    /// the folder is not trusted.
    pub left_off: Vec<Brought>,
    /// The workspace's other roots and the standing each one's `tandem.json` was read under.
    pub roots: Vec<(PathBuf, Standing)>,
    /// The Claude Code plugins that load, each with its standing: a plugin's hooks and MCP
    /// servers start only when it is trusted (none unless read under trust).
    pub plugins: Vec<(super::plugins::Plugin, Standing)>,
}

impl LoadedConfig {
    /// The folders of the workspace whose files this config was read with, each with its
    /// standing, lowest precedence first: the other roots, then the project (`cwd`), which wins.
    pub fn folders<'a>(&'a self, cwd: &'a Path) -> Vec<(&'a Path, &'a Standing)> {
        let roots = self
            .roots
            .iter()
            .map(|(root, standing)| (root.as_path(), standing));
        roots.chain([(cwd, &self.standing)]).collect()
    }

    /// `folders` without their standings.
    pub fn folder_paths<'a>(&'a self, cwd: &'a Path) -> Vec<&'a Path> {
        self.roots
            .iter()
            .map(|(root, _)| root.as_path())
            .chain([cwd])
            .collect()
    }
}

/// The files that apply to a session in `cwd`, lowest precedence first.
pub fn candidate_files(cwd: &Path) -> Vec<PathBuf> {
    let mut files = vec![
        paths::config_dir().join("tandem.json"),
        cwd.join("tandem.json"),
    ];
    if let Some(extra) = std::env::var_os("TANDEM_CONFIG").filter(|v| !v.is_empty()) {
        files.push(PathBuf::from(extra));
    }
    files
}

/// Loads the config for `cwd` as an untrusted folder's: the project's own file only narrows.
/// Sessions load through the trust module, which knows the person's answer.
pub fn load(cwd: &Path) -> Result<LoadedConfig, ConfigError> {
    load_as(cwd, Standing::Untrusted)
}

/// Loads and merges every config file that exists for `cwd`. `TANDEM_CONFIG` must exist. The
/// project's `tandem.json` applies whole only when `standing` is trusted; otherwise what it
/// would start or widen is left off (and listed), and it reads no environment variables.
pub fn load_as(cwd: &Path, standing: Standing) -> Result<LoadedConfig, ConfigError> {
    load_workspace(cwd, standing, Vec::new())
}

/// `load_as` for a workspace: each other root's `tandem.json` (under that root's own
/// standing) applies after the person's files and before the project's, which wins.
pub fn load_workspace(
    cwd: &Path,
    standing: Standing,
    roots: Vec<(PathBuf, Standing)>,
) -> Result<LoadedConfig, ConfigError> {
    let mut files = candidate_files(cwd);
    let root_files: Vec<(PathBuf, bool)> = roots
        .iter()
        .filter_map(|(root, standing)| Some((project_file(root)?, standing.is_trusted())))
        .collect();
    files.splice(1..1, root_files.iter().map(|(file, _)| file.clone()));
    let explicit = std::env::var_os("TANDEM_CONFIG").map(PathBuf::from);
    let project_file = project_file(cwd);
    let mut merged = Value::Object(Default::default());
    let mut loaded = LoadedConfig {
        standing,
        roots,
        ..LoadedConfig::default()
    };
    for path in files {
        let must_exist = explicit.as_deref() == Some(path.as_path());
        let of_root = root_files.iter().find(|(file, _)| *file == path);
        let restricted = match of_root {
            Some((_, trusted)) => !trusted,
            None => !loaded.standing.is_trusted() && project_file.as_deref() == Some(&path),
        };
        let Some(mut value) = read_file_as(&path, must_exist, !restricted)? else {
            continue;
        };
        if restricted {
            let shown = path.display().to_string();
            let source = match of_root {
                Some(_) => Path::new(&shown),
                None => Path::new("tandem.json"),
            };
            loaded
                .left_off
                .extend(restrict::project_config(&mut value, source));
            let names = env_names(&value);
            if !names.is_empty() {
                loaded.left_off.push(Brought {
                    kind: BroughtKind::Environment,
                    name: String::new(),
                    detail: names.join(", "),
                    source: source.to_owned(),
                });
                substitute_env_with(&mut value, &|_| String::new());
            }
        }
        loaded
            .warnings
            .extend(check(&path, &value)?.into_iter().map(|key| {
                format!(
                    "config file {}: unknown key `{key}` ignored",
                    path.display()
                )
            }));
        merge(&mut merged, value);
        loaded.sources.push(path);
    }
    if let Some(overrides) = COMMAND_LINE.get() {
        merge(&mut merged, overrides.clone());
    }
    loaded.config = serde_json::from_value(merged).map_err(|e| ConfigError::Type {
        path: loaded.sources.last().cloned().unwrap_or_default(),
        key: String::new(),
        message: e.to_string(),
    })?;
    for warning in &loaded.warnings {
        tracing::warn!("{warning}");
    }
    Ok(loaded)
}

/// Settings given on this process's command line (`tandem run --max-cost`), above every file.
static COMMAND_LINE: std::sync::OnceLock<Value> = std::sync::OnceLock::new();

/// Sets the command line's settings (once, before any session opens), in the config's shape.
pub fn set_command_line(settings: Value) {
    let _ = COMMAND_LINE.set(settings);
}

/// The project's own `tandem.json`, unless it is one of the person's files (a project in the
/// config folder).
pub fn project_file(cwd: &Path) -> Option<PathBuf> {
    let path = cwd.join("tandem.json");
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let mine = paths::config_dir().join("tandem.json");
    (real(&path) != real(&mine)).then_some(path)
}

/// Parses one file (JSON with comments). `None` if it does not exist and need not.
pub(crate) fn read_file(path: &Path, must_exist: bool) -> Result<Option<Value>, ConfigError> {
    read_file_as(path, must_exist, true)
}

/// A config file as written (placeholders left as they are); `None` if it does not exist.
pub(crate) fn read_unexpanded(path: &Path) -> Result<Option<Value>, ConfigError> {
    read_file_as(path, false, false)
}

/// As `read_file`; `{env:NAME}` is replaced only when `expand`.
fn read_file_as(path: &Path, must_exist: bool, expand: bool) -> Result<Option<Value>, ConfigError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => return Ok(None),
        Err(e) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                message: e.to_string(),
            });
        }
    };
    let mut text = String::new();
    json_comments::StripComments::new(file)
        .read_to_string(&mut text)
        .map_err(|e| ConfigError::Read {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
    let mut value: Value = serde_json::from_str(&text).map_err(|e| ConfigError::Syntax {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    if !value.is_object() {
        return Err(ConfigError::Type {
            path: path.to_owned(),
            key: "(top level)".into(),
            message: "expected a JSON object".into(),
        });
    }
    if expand {
        substitute_env_with(&mut value, &|name| std::env::var(name).unwrap_or_default());
    }
    Ok(Some(value))
}

/// Type-checks one file against the schema; returns its unknown keys.
pub(crate) fn check(path: &Path, value: &Value) -> Result<Vec<String>, ConfigError> {
    let mut unknown = Vec::new();
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(value, &mut track);
    let result: Result<Config, _> =
        serde_ignored::deserialize(tracked, |ignored| unknown.push(ignored.to_string()));
    if let Err(error) = result {
        return Err(ConfigError::Type {
            path: path.to_owned(),
            key: track.path().to_string(),
            message: error.to_string(),
        });
    }
    Ok(unknown)
}

/// Deep merge: objects merge key by key, anything else in `top` replaces `base`.
pub(crate) fn merge(base: &mut Value, top: Value) {
    match (base, top) {
        (Value::Object(base), Value::Object(top)) => {
            for (key, value) in top {
                match base.get_mut(&key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge(existing, value)
                    }
                    _ => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, top) => *base = top,
    }
}

/// Replaces `{env:NAME}` in every string with `lookup(NAME)` (the variable's value, or
/// nothing for a file that may not read the person's environment).
fn substitute_env_with(value: &mut Value, lookup: &dyn Fn(&str) -> String) {
    match value {
        Value::String(s) if s.contains("{env:") => *s = expand_env(s, lookup),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| substitute_env_with(v, lookup)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| substitute_env_with(v, lookup)),
        _ => {}
    }
}

/// The variables `{env:NAME}` names anywhere in `value`.
pub(crate) fn env_names(value: &Value) -> Vec<String> {
    let names = std::cell::RefCell::new(Vec::<String>::new());
    let mut copy = value.clone();
    substitute_env_with(&mut copy, &|name| {
        let mut names = names.borrow_mut();
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        String::new()
    });
    names.into_inner()
}

fn expand_env(s: &str, lookup: &dyn Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("{env:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 5..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&lookup(&after[..end]));
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

impl Config {
    /// Parses one config text on its own (used by tests and tools that validate a file).
    pub fn from_json_str(text: &str) -> Result<Self, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(text);
        Config::deserialize(&mut de)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_errors_name_the_key_and_the_expectation() {
        let err = check(
            Path::new("/x/tandem.json"),
            &json!({"provider": {"local": {"api": "grpc"}}}),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("/x/tandem.json"), "{text}");
        assert!(text.contains("provider.local.api"), "{text}");
        assert!(
            text.contains("expected one of `openai`, `anthropic`, `responses`, `scripted`"),
            "{text}"
        );
    }

    #[test]
    fn unknown_keys_are_returned_by_their_path() {
        let warnings = check(
            Path::new("/x/tandem.json"),
            &json!({"modle": "a/b", "provider": {"p": {"optoins": {}}}}),
        )
        .unwrap();
        assert_eq!(warnings, ["modle", "provider.p.optoins"]);
    }

    #[test]
    fn merge_is_deep_and_later_wins() {
        let mut base = json!({"model": "a/x", "provider": {"a": {"options": {"apiKey": "k", "baseURL": "u"}}}});
        merge(
            &mut base,
            json!({"model": "b/y", "provider": {"a": {"options": {"apiKey": "k2"}}}}),
        );
        assert_eq!(
            base,
            json!({"model": "b/y", "provider": {"a": {"options": {"apiKey": "k2", "baseURL": "u"}}}})
        );
    }

    #[test]
    fn env_placeholders_expand() {
        // SAFETY: tests in this module do not read this variable concurrently.
        unsafe { std::env::set_var("TANDEM_TEST_KEY", "secret") };
        let env = |name: &str| std::env::var(name).unwrap_or_default();
        assert_eq!(
            expand_env("Bearer {env:TANDEM_TEST_KEY}!", &env),
            "Bearer secret!"
        );
        assert_eq!(expand_env("{env:TANDEM_TEST_UNSET_VAR}", &env), "");
        assert_eq!(expand_env("no {env:closing", &env), "no {env:closing");
    }

    #[test]
    fn comments_are_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tandem.json");
        std::fs::write(
            &path,
            "{\n // the model\n \"model\": \"a/b\" /* inline */\n}",
        )
        .unwrap();
        let value = read_file(&path, true).unwrap().unwrap();
        assert_eq!(value, json!({"model": "a/b"}));
    }
}
