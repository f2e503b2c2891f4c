//! Markdown files with YAML frontmatter (agents, commands): the files of a directory, the
//! frontmatter as a JSON value the config types deserialise from, and the body after it.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

/// `(name, path)` of every `*.md` file in `dir` (name = file stem), in name order.
pub fn files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter_map(|p| Some((p.file_stem()?.to_string_lossy().into_owned(), p)))
        .collect();
    files.sort();
    files
}

/// `value` as a `T`; an error names the field that is wrong: `(field, why)`.
pub fn typed<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    let mut track = serde_path_to_error::Track::new();
    let de = serde_path_to_error::Deserializer::new(&value, &mut track);
    let result: Result<T, _> = serde_ignored::deserialize(de, |_| {});
    result.map_err(|e| (track.path().to_string(), e.to_string()))
}

/// `(frontmatter, body)`; a bad frontmatter is `("(frontmatter)", why)`.
pub fn split(text: &str) -> Result<(Value, &str), (String, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (front, body) = match text.strip_prefix("---") {
        Some(rest) => match rest.find("\n---") {
            Some(end) => {
                let body = &rest[end + 4..];
                (&rest[..end], body.strip_prefix('\n').unwrap_or(body))
            }
            None => {
                return Err((
                    "(frontmatter)".into(),
                    "the frontmatter has no closing `---`".into(),
                ));
            }
        },
        None => ("", text),
    };
    let value = if front.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        let docs = YamlLoader::load_from_str(front)
            .map_err(|e| ("(frontmatter)".to_owned(), e.to_string()))?;
        docs.first().map(yaml_to_json).unwrap_or(Value::Null)
    };
    if !value.is_object() {
        return Err(("(frontmatter)".into(), "expected key: value pairs".into()));
    }
    Ok((value, body))
}

fn yaml_to_json(yaml: &Yaml) -> Value {
    match yaml {
        Yaml::Real(s) => s
            .parse::<f64>()
            .map(Value::from)
            .unwrap_or(Value::String(s.clone())),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(items) => Value::Array(items.iter().map(yaml_to_json).collect()),
        Yaml::Hash(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Yaml::String(s) => s.clone(),
                        other => yaml_to_json(other).to_string().trim_matches('"').to_owned(),
                    };
                    (key, yaml_to_json(v))
                })
                .collect(),
        ),
        _ => Value::Null,
    }
}
