//! Gemini CLI's sessions: one file per session in `~/.gemini/tmp/<project>/chats/`
//! (`GEMINI_CLI_HOME` for `~`), `<project>` the slug `projects.json` gives the folder (older
//! releases: the SHA-256 of its path). A JSONL file opens with the session's meta, then `$set`
//! lines change it and each message is written again as it grows (the last line of an id wins,
//! in the place of its first); older releases write one JSON object holding the messages. A
//! chat the person saved (`/chat save TAG`) is the API's history, in `checkpoint-TAG.json`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Agent, Found};

mod read;
pub use read::read;

fn home() -> Option<PathBuf> {
    let base = match std::env::var_os("GEMINI_CLI_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?),
    };
    Some(base.join(".gemini"))
}

/// The folders Gemini CLI keeps `project`'s sessions in: its slug's (from `projects.json`, or
/// any folder whose `.project_root` names it) and its path's hash.
fn project_dirs(home: &Path, project: &Path) -> Vec<PathBuf> {
    let tmp = home.join("tmp");
    let mut dirs = Vec::new();
    let listed: Option<Value> = std::fs::read_to_string(home.join("projects.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    if let Some(slug) = listed
        .as_ref()
        .and_then(|l| l["projects"][project.to_string_lossy().as_ref()].as_str())
    {
        dirs.push(tmp.join(slug));
    }
    for entry in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
        let root = std::fs::read_to_string(entry.path().join(".project_root")).unwrap_or_default();
        if Path::new(root.trim()) == project && !dirs.contains(&entry.path()) {
            dirs.push(entry.path());
        }
    }
    let digest = ring::digest::digest(&ring::digest::SHA256, project.to_string_lossy().as_bytes());
    dirs.push(tmp.join(crate::config::hex(digest.as_ref())));
    dirs
}

/// The sessions Gemini CLI ran in `project`, and the chats the person saved there.
pub fn list(project: &Path) -> Vec<Found> {
    let Some(home) = home() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for dir in project_dirs(&home, project) {
        let chats = std::fs::read_dir(dir.join("chats")).into_iter().flatten();
        let saved = std::fs::read_dir(&dir).into_iter().flatten();
        for entry in chats.chain(saved).flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let session = name.starts_with("session-")
                && (name.ends_with(".jsonl") || name.ends_with(".json"));
            let checkpoint = name.starts_with("checkpoint-") && name.ends_with(".json");
            if (session || checkpoint)
                && let Some(one) = describe(&entry.path(), project)
            {
                found.push(one);
            }
        }
    }
    found
}

/// A session file's meta and messages, and how many lines could not be read.
pub(super) struct Record {
    meta: Value,
    pub messages: Vec<Value>,
    pub skipped: usize,
    /// Every message seen with its tool calls whole, by id, whatever list replaced it since.
    whole: HashMap<String, Value>,
}

/// Reads a session file of either shape; None when it is not Gemini CLI's.
pub(super) fn record(text: &str) -> Option<Record> {
    if let Ok(whole) = serde_json::from_str::<Value>(text)
        && whole.get("projectHash").is_some()
    {
        let messages = whole["messages"].as_array().cloned().unwrap_or_default();
        return Some(Record {
            meta: whole,
            messages,
            skipped: 0,
            whole: HashMap::new(),
        });
    }
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let meta: Value = serde_json::from_str(lines.next()?).ok()?;
    meta.get("projectHash")?;
    let mut record = Record {
        meta,
        messages: Vec::new(),
        skipped: 0,
        whole: HashMap::new(),
    };
    for line in lines {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            record.skipped += 1;
            continue;
        };
        if let Some(Value::Object(set)) = value.get("$set") {
            for (key, new) in set {
                match key.as_str() {
                    "messages" => record.replace_messages(new),
                    _ => record.meta[key] = new.clone(),
                }
            }
        } else if let Some(id) = value["id"].as_str() {
            let id = id.to_owned();
            record.upsert(&id, value);
        }
    }
    Some(record)
}

impl Record {
    /// A message written (again): it replaces the earlier line of its id, in that place.
    fn upsert(&mut self, id: &str, message: Value) {
        if message.get("toolCalls").is_some() {
            self.whole.insert(id.to_owned(), message.clone());
        }
        match self.messages.iter_mut().find(|m| m["id"] == id) {
            Some(earlier) => *earlier = message,
            None => self.messages.push(message),
        }
    }

    /// A `$set` of the whole list (a resumed session writes its messages again, as the API's
    /// parts): a message seen before with its tool calls whole (and their diffs) stays so.
    fn replace_messages(&mut self, new: &Value) {
        self.messages = (new.as_array().into_iter().flatten())
            .map(|message| {
                let id = message["id"].as_str().unwrap_or_default();
                self.whole.get(id).unwrap_or(message).clone()
            })
            .collect();
    }
}

/// The person's words in a message, unless it holds only results, thoughts or Gemini CLI's
/// own context.
pub(super) fn words(message: &Value) -> Option<String> {
    if message["type"] != "user" {
        return None;
    }
    let context = |t: &str| t.trim_start().starts_with("<session_context>");
    let text = match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let texts: Vec<&str> = (parts.iter())
                .filter(|p| p["thought"] != true)
                .filter_map(|p| p["text"].as_str())
                .filter(|t| !context(t))
                .collect();
            texts.join("\n")
        }
        _ => String::new(),
    };
    (!text.trim().is_empty() && !context(&text)).then_some(text)
}

/// A session file's (or saved chat's) id, project, title and times.
pub fn describe(path: &Path, project: &Path) -> Option<Found> {
    let text = std::fs::read_to_string(path).ok()?;
    // The folder it ran in, as its project folder's `.project_root` names it (a chat is in
    // that folder's `chats/`, a saved chat in the folder itself).
    let cwd = (path.ancestors().skip(1).take(2))
        .find_map(|d| std::fs::read_to_string(d.join(".project_root")).ok())
        .map(|r| PathBuf::from(r.trim()))
        .unwrap_or_else(|| project.to_owned());
    if let Some(history) = checkpoint(&text) {
        return saved_chat(path, cwd, &history);
    }
    let record = record(&text)?;
    let meta = &record.meta;
    let created_at = super::timestamp(meta["startTime"].as_str().unwrap_or_default()).unwrap_or(0);
    let title = (meta["summary"].as_str().map(str::to_owned)).or_else(|| {
        record
            .messages
            .iter()
            .find_map(words)
            .map(|w| super::title_from(&w))
    });
    Some(Found {
        agent: Agent::Gemini,
        source_id: meta["sessionId"].as_str()?.to_owned(),
        path: path.to_owned(),
        cwd,
        title,
        created_at,
        updated_at: super::timestamp(meta["lastUpdated"].as_str().unwrap_or_default())
            .unwrap_or(created_at),
        version: None,
    })
}

/// A chat the person saved: the API's history as messages of the session file's shape.
pub(super) fn checkpoint(text: &str) -> Option<Vec<Value>> {
    let whole: Value = serde_json::from_str(text).ok()?;
    let history = whole.get("history")?.as_array()?;
    let messages = history.iter().map(|content| {
        let kind = if content["role"] == "model" {
            "gemini"
        } else {
            "user"
        };
        serde_json::json!({"type": kind, "content": content["parts"]})
    });
    Some(messages.collect())
}

/// A saved chat's id, title (its tag, then the first prompt) and times (the file's).
fn saved_chat(path: &Path, cwd: PathBuf, history: &[Value]) -> Option<Found> {
    let name = path.file_stem()?.to_string_lossy();
    let tag = name.strip_prefix("checkpoint-")?.to_owned();
    let changed = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let at = changed
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64);
    let prompt = history
        .iter()
        .find_map(words)
        .map(|w| super::title_from(&w));
    Some(Found {
        agent: Agent::Gemini,
        source_id: format!("checkpoint-{tag}@{}", cwd.display()),
        path: path.to_owned(),
        title: Some(match prompt {
            Some(prompt) => format!("{tag}: {prompt}"),
            None => tag,
        }),
        cwd,
        created_at: at,
        updated_at: at,
        version: None,
    })
}
