//! Finding, reading and merging `tandem.json` files: global, then project, then
//! `TANDEM_CONFIG`. Each file is checked on its own so errors and warnings name it.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_json::Value;

use super::Config;
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

/// Loads and merges every config file that exists for `cwd`. `TANDEM_CONFIG` must exist.
pub fn load(cwd: &Path) -> Result<LoadedConfig, ConfigError> {
    let files = candidate_files(cwd);
    let explicit = std::env::var_os("TANDEM_CONFIG").map(PathBuf::from);
    let mut merged = Value::Object(Default::default());
    let mut loaded = LoadedConfig::default();
    for path in files {
        let must_exist = explicit.as_deref() == Some(path.as_path());
        let Some(value) = read_file(&path, must_exist)? else {
            continue;
        };
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

/// Parses one file (JSON with comments). `None` if it does not exist and need not.
pub(crate) fn read_file(path: &Path, must_exist: bool) -> Result<Option<Value>, ConfigError> {
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
    substitute_env(&mut value);
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

/// Replaces `{env:NAME}` in every string with the variable's value (empty if unset).
fn substitute_env(value: &mut Value) {
    match value {
        Value::String(s) if s.contains("{env:") => *s = expand_env(s),
        Value::Array(items) => items.iter_mut().for_each(substitute_env),
        Value::Object(map) => map.values_mut().for_each(substitute_env),
        _ => {}
    }
}

fn expand_env(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("{env:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 5..];
        match after.find('}') {
            Some(end) => {
                out.push_str(&std::env::var(&after[..end]).unwrap_or_default());
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
        assert_eq!(
            expand_env("Bearer {env:TANDEM_TEST_KEY}!"),
            "Bearer secret!"
        );
        assert_eq!(expand_env("{env:TANDEM_TEST_UNSET_VAR}"), "");
        assert_eq!(expand_env("no {env:closing"), "no {env:closing");
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
