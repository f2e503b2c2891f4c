//! Codex's sessions: one rollout JSONL per session under `~/.codex/sessions/YYYY/MM/DD/`
//! (`CODEX_HOME` for `~/.codex`), its first line the session's meta (id, project, version).
//! The conversation is read from its `response_item` records (the person's words from its
//! `user_message` events, which hold them without Codex's own context), each answer a step
//! until the next tool output; a patch's change is read from its `FileChange` event.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::build::Builder;
use super::{Agent, Converted, Found, tools};
use crate::message::FileDiff;

fn home() -> Option<PathBuf> {
    match std::env::var_os("CODEX_HOME") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".codex")),
    }
}

/// Every rollout file under `dir`, depth-first.
fn rollouts(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rollouts(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// The sessions Codex ran in `project`.
pub fn list(project: &Path) -> Vec<Found> {
    let Some(home) = home() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    rollouts(&home.join("sessions"), &mut files);
    files
        .iter()
        .filter_map(|path| describe(path))
        .filter(|found| found.cwd == project)
        .collect()
}

/// A rollout's id, project, version and times (from its meta line and the file's time), and
/// its title (the first thing the person asked).
pub fn describe(path: &Path) -> Option<Found> {
    let file = std::fs::File::open(path).ok()?;
    let mut lines = std::io::BufReader::new(file).lines();
    let meta: Value = serde_json::from_str(&lines.next()?.ok()?).ok()?;
    if meta["type"] != "session_meta" {
        return None;
    }
    let payload = &meta["payload"];
    let created_at = super::timestamp(payload["timestamp"].as_str().unwrap_or_default())?;
    let updated_at = last_timestamp(path).unwrap_or(created_at);
    let title = lines.take(200).map_while(Result::ok).find_map(|line| {
        let record: Value = serde_json::from_str(&line).ok()?;
        prompt(&record["payload"]).map(|p| super::title_from(&p))
    });
    Some(Found {
        agent: Agent::Codex,
        source_id: payload["id"].as_str()?.to_owned(),
        path: path.to_owned(),
        cwd: PathBuf::from(payload["cwd"].as_str()?),
        title,
        created_at,
        updated_at,
        version: payload["cli_version"].as_str().map(str::to_owned),
    })
}

/// The person's words, if this event holds them: `user_message` (earlier releases), or a
/// completed `UserMessage` item.
fn prompt(payload: &Value) -> Option<String> {
    match payload["type"].as_str()? {
        "user_message" => payload["message"].as_str().map(str::to_owned),
        "item_completed" if payload["item"]["type"] == "UserMessage" => {
            let text: Vec<&str> = payload["item"]["content"]
                .as_array()?
                .iter()
                .filter_map(|c| c["text"].as_str())
                .collect();
            Some(text.join("\n"))
        }
        _ => None,
    }
}

/// The time of the file's last record, read from its end.
fn last_timestamp(path: &Path) -> Option<i64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    let length = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(length.saturating_sub(16 * 1024)))
        .ok()?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    String::from_utf8_lossy(&tail)
        .lines()
        .rev()
        .find_map(|line| {
            let record: Value = serde_json::from_str(line).ok()?;
            super::timestamp(record["timestamp"].as_str()?)
        })
}

/// The rollout as Tandem messages; unreadable lines are skipped and counted.
pub fn read(found: &Found, builder: &mut Builder) -> Result<Converted, String> {
    let text = std::fs::read_to_string(&found.path)
        .map_err(|e| format!("cannot read {}: {e}", found.path.display()))?;
    let mut converted = Converted::default();
    let mut model: Option<String> = None;
    let mut provider = "openai".to_owned();
    // Whether the next assistant item begins a new answer (after the person or a tool output).
    let mut answered = true;
    // The person's last words, until an answer follows them.
    let mut asked: Option<String> = None;
    let changes = file_changes(&text);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            converted.skipped_lines += 1;
            continue;
        };
        let at = record["timestamp"].as_str().and_then(super::timestamp);
        let payload = &record["payload"];
        match (record["type"].as_str(), payload["type"].as_str()) {
            (Some("session_meta"), _) => {
                if let Some(p) = payload["model_provider"].as_str() {
                    provider = p.to_owned();
                }
            }
            (Some("turn_context"), _) => {
                model = payload["model"].as_str().map(|m| format!("{provider}/{m}"));
            }
            // A release that records the words twice (both events) gives them once.
            (Some("event_msg"), Some(_)) => match prompt(payload) {
                Some(words) if !(answered && asked.as_ref() == Some(&words)) => {
                    builder.user(&words, at);
                    asked = Some(words);
                    answered = true;
                }
                _ => {}
            },
            (Some("response_item"), Some(kind)) => {
                let output = matches!(kind, "function_call_output" | "custom_tool_call_output");
                let assistant_side =
                    (!output && kind != "message") || payload["role"] == "assistant";
                if assistant_side && answered {
                    builder.new_step(model.as_deref(), at);
                    answered = false;
                    asked = None;
                }
                item(payload, kind, (model.as_deref(), at), &changes, builder);
                if output {
                    answered = true;
                }
            }
            _ => {}
        }
    }
    Ok(converted)
}

fn item(
    payload: &Value,
    kind: &str,
    (model, at): (Option<&str>, Option<i64>),
    changes: &HashMap<String, Vec<FileDiff>>,
    builder: &mut Builder,
) {
    match kind {
        "message" if payload["role"] == "assistant" => {
            for part in payload["content"].as_array().into_iter().flatten() {
                if let Some(text) = part["text"].as_str() {
                    builder.text(text, model, at);
                }
            }
        }
        "reasoning" => {
            let text: Vec<&str> = payload["summary"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s["text"].as_str())
                .collect();
            if !text.is_empty() {
                builder.reasoning(&text.join("\n\n"), None, at);
            }
        }
        "function_call" | "custom_tool_call" => {
            let name = payload["name"].as_str().unwrap_or_default();
            let input = match kind {
                "function_call" => payload["arguments"]
                    .as_str()
                    .and_then(|a| serde_json::from_str(a).ok())
                    .unwrap_or(Value::Null),
                _ => payload["input"].clone(),
            };
            let (name, input) = tools::from_codex(name, &input);
            let id = payload["call_id"].as_str().unwrap_or_default();
            builder.call(id, &name, input, model, at);
        }
        "function_call_output" | "custom_tool_call_output" => {
            let id = payload["call_id"].as_str().unwrap_or_default();
            let output = match &payload["output"] {
                Value::String(text) => text.clone(),
                other => other["content"].as_str().unwrap_or_default().to_owned(),
            };
            let diffs = changes.get(id).cloned().unwrap_or_default();
            builder.result(id, output, false, diffs, at);
        }
        _ => {}
    }
}

/// The changes each patch call made (by call id), from the `FileChange` events: the lines of
/// each hunk, before and after (a rollout keeps no whole files).
fn file_changes(text: &str) -> HashMap<String, Vec<FileDiff>> {
    let mut found = HashMap::new();
    for line in text.lines().filter(|l| l.contains("\"FileChange\"")) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let item = &record["payload"]["item"];
        let (Some(id), Some(files)) = (item["id"].as_str(), item["changes"].as_object()) else {
            continue;
        };
        let diffs = files
            .iter()
            .map(|(path, change)| {
                let diff = change["unified_diff"]
                    .as_str()
                    .or(change["content"].as_str());
                super::build::from_unified(path, diff.unwrap_or(""), change["type"] == "add")
            })
            .collect();
        found.insert(id.to_owned(), diffs);
    }
    found
}
