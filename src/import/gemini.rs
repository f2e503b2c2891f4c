//! Gemini CLI's sessions: one file per session in `~/.gemini/tmp/<project>/chats/`
//! (`GEMINI_CLI_HOME` for `~`), `<project>` the slug `projects.json` gives the folder (older
//! releases: the SHA-256 of its path). A JSONL file opens with the session's meta, then `$set`
//! lines change it and each message is written again as it grows (the last line of an id wins,
//! in the place of its first); older releases write one JSON object holding the messages.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::build::Builder;
use super::{Agent, Converted, Found, tools};
use crate::message::{FileDiff, Usage};

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

/// The sessions Gemini CLI ran in `project`.
pub fn list(project: &Path) -> Vec<Found> {
    let Some(home) = home() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for dir in project_dirs(&home, project) {
        let Ok(entries) = std::fs::read_dir(dir.join("chats")) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("session-")
                && (name.ends_with(".jsonl") || name.ends_with(".json"))
                && let Some(session) = describe(&path, project)
            {
                found.push(session);
            }
        }
    }
    found
}

/// A session file's meta and messages, and how many lines could not be read.
struct Record {
    meta: Value,
    messages: Vec<Value>,
    skipped: usize,
}

/// Reads a session file of either shape; None when it is not Gemini CLI's.
fn record(text: &str) -> Option<Record> {
    if let Ok(whole) = serde_json::from_str::<Value>(text)
        && whole.get("projectHash").is_some()
    {
        let messages = whole["messages"].as_array().cloned().unwrap_or_default();
        return Some(Record {
            meta: whole,
            messages,
            skipped: 0,
        });
    }
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let meta: Value = serde_json::from_str(lines.next()?).ok()?;
    meta.get("projectHash")?;
    let mut record = Record {
        meta,
        messages: Vec::new(),
        skipped: 0,
    };
    for line in lines {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            record.skipped += 1;
            continue;
        };
        if let Some(Value::Object(set)) = value.get("$set") {
            for (key, new) in set {
                match key.as_str() {
                    "messages" => record.messages = new.as_array().cloned().unwrap_or_default(),
                    _ => record.meta[key] = new.clone(),
                }
            }
        } else if let Some(id) = value["id"].as_str() {
            match record.messages.iter_mut().find(|m| m["id"] == id) {
                Some(earlier) => *earlier = value,
                None => record.messages.push(value),
            }
        }
    }
    Some(record)
}

/// The person's words in a message, unless it is a tool's result or Gemini CLI's own context.
fn words(message: &Value) -> Option<String> {
    if message["type"] != "user" {
        return None;
    }
    let text = match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
            texts.join("\n")
        }
        _ => String::new(),
    };
    let context = text.trim_start().starts_with("<session_context>");
    (!text.trim().is_empty() && !context).then_some(text)
}

/// A session file's id, project, title and times.
pub fn describe(path: &Path, project: &Path) -> Option<Found> {
    let text = std::fs::read_to_string(path).ok()?;
    let record = record(&text)?;
    let meta = &record.meta;
    let created_at = super::timestamp(meta["startTime"].as_str().unwrap_or_default()).unwrap_or(0);
    // The folder it ran in, as its project folder's `.project_root` names it.
    let root = path
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join(".project_root"));
    let cwd = root
        .and_then(|r| std::fs::read_to_string(r).ok())
        .map(|r| PathBuf::from(r.trim()))
        .unwrap_or_else(|| project.to_owned());
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

/// The session as Tandem messages; unreadable lines are skipped and counted.
pub fn read(found: &Found, builder: &mut Builder) -> Result<Converted, String> {
    let text = std::fs::read_to_string(&found.path)
        .map_err(|e| format!("cannot read {}: {e}", found.path.display()))?;
    let record = record(&text).ok_or("it is not a Gemini CLI session")?;
    for message in &record.messages {
        let at = message["timestamp"].as_str().and_then(super::timestamp);
        if let Some(words) = words(message) {
            builder.user(&words, at);
        } else if message["type"] == "gemini" {
            answer(message, at, builder);
        }
    }
    Ok(Converted {
        skipped_lines: record.skipped,
    })
}

/// One model answer: its thoughts, its words, its tool calls with their results.
fn answer(message: &Value, at: Option<i64>, builder: &mut Builder) {
    let model = message["model"].as_str().map(|m| format!("google/{m}"));
    let model = model.as_deref();
    builder.new_step(model, at);
    for thought in message["thoughts"].as_array().into_iter().flatten() {
        let subject = thought["subject"].as_str().unwrap_or_default();
        let description = thought["description"].as_str().unwrap_or_default();
        let text = match subject.is_empty() {
            true => description.to_owned(),
            false => format!("**{subject}** {description}"),
        };
        builder.reasoning(&text, None, at);
    }
    if let Some(text) = message["content"].as_str().filter(|t| !t.is_empty()) {
        builder.text(text, model, at);
    }
    for call in message["toolCalls"].as_array().into_iter().flatten() {
        let id = call["id"].as_str().unwrap_or_default();
        let (name, input) =
            tools::from_gemini(call["name"].as_str().unwrap_or_default(), &call["args"]);
        builder.call(id, &name, input, model, at);
        let response = &call["result"][0]["functionResponse"]["response"];
        let error = call["status"].as_str().is_some_and(|s| s != "success");
        let output = (response["output"].as_str())
            .or(response["error"].as_str())
            .or(call["resultDisplay"].as_str())
            .unwrap_or_default()
            .to_owned();
        let ended = call["timestamp"].as_str().and_then(super::timestamp);
        builder.result(
            id,
            output,
            error,
            diff(&call["resultDisplay"]).into_iter().collect(),
            ended,
        );
    }
    let tokens = &message["tokens"];
    if tokens.is_object() {
        let n = |k: &str| tokens[k].as_u64().unwrap_or(0);
        builder.usage(Usage {
            input: n("input").saturating_sub(n("cached")),
            output: n("output"),
            reasoning: n("thoughts"),
            cache_read: n("cached"),
            cache_write: 0,
        });
    }
}

/// The whole-file change a write or edit recorded, if it did.
fn diff(display: &Value) -> Option<FileDiff> {
    let path = display["filePath"].as_str()?;
    let new_text = display["newContent"].as_str()?.to_owned();
    let old_text = match display["isNewFile"].as_bool() {
        Some(true) => None,
        _ => display["originalContent"].as_str().map(str::to_owned),
    };
    Some(FileDiff {
        path: PathBuf::from(path),
        old_text,
        new_text,
    })
}
