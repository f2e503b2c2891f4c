//! OpenCode's sessions: its SQLite database (`opencode.db` in its data dir, `~/.local/share/
//! opencode`), opened read-only. Its messages and parts are close to Tandem's own (Tandem
//! follows OpenCode's model and tool names): each assistant message is a step, each tool part
//! a call with its result, an edit's unified diff and a new file's content as diffs.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::build::{Builder, from_unified};
use super::{Agent, Converted, Found};
use crate::message::{FileDiff, FinishReason, Usage};

/// OpenCode's database.
fn database() -> Option<PathBuf> {
    let data = match std::env::var_os("XDG_DATA_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
    };
    Some(data.join("opencode/opencode.db"))
}

fn open(path: &Path) -> Result<Connection, String> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open {} ({e})", path.display()))
}

/// The top sessions OpenCode ran in `project`.
pub fn list(project: &Path) -> Vec<Found> {
    let Some(path) = database().filter(|p| p.exists()) else {
        return Vec::new();
    };
    sessions(&path, Some(project)).unwrap_or_else(|error| {
        tracing::warn!(%error, "OpenCode's sessions cannot be listed");
        Vec::new()
    })
}

/// The sessions in the database at `path` (of `project` only, when given).
pub fn sessions(path: &Path, project: Option<&Path>) -> Result<Vec<Found>, String> {
    let conn = open(path)?;
    let mut query = conn
        .prepare(
            "SELECT id, directory, title, version, time_created, time_updated FROM session
             WHERE parent_id IS NULL ORDER BY time_updated DESC",
        )
        .map_err(|e| format!("its sessions cannot be read ({e}): not a database Tandem knows"))?;
    let rows = query
        .query_map([], |r| {
            Ok(Found {
                agent: Agent::OpenCode,
                source_id: r.get(0)?,
                path: path.to_owned(),
                cwd: PathBuf::from(r.get::<_, String>(1)?),
                title: r.get::<_, Option<String>>(2)?.filter(|t| !t.is_empty()),
                version: r.get(3)?,
                created_at: r.get(4)?,
                updated_at: r.get(5)?,
            })
        })
        .map_err(|e| e.to_string())?;
    Ok(rows
        .filter_map(Result::ok)
        .filter(|f| project.is_none_or(|p| f.cwd == p))
        .collect())
}

/// The session as Tandem messages; a record that cannot be read is skipped and counted.
pub fn read(found: &Found, builder: &mut Builder) -> Result<Converted, String> {
    let conn = open(&found.path)?;
    let mut converted = Converted::default();
    let records = |sql: &str| -> Result<Vec<(String, String)>, String> {
        let mut query = conn.prepare(sql).map_err(|e| e.to_string())?;
        let rows = query
            .query_map([&found.source_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| e.to_string())?;
        Ok(rows.filter_map(Result::ok).collect())
    };
    let messages = records("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY id")?;
    let parts = records("SELECT message_id, data FROM part WHERE session_id = ?1 ORDER BY id")?;
    for (id, data) in messages {
        let Ok(message) = serde_json::from_str::<Value>(&data) else {
            converted.skipped_lines += 1;
            continue;
        };
        let own: Vec<Value> = parts
            .iter()
            .filter(|(m, _)| *m == id)
            .filter_map(|(_, d)| serde_json::from_str(d).ok())
            .collect();
        match message["role"].as_str() {
            Some("user") => {
                let words: Vec<&str> = own
                    .iter()
                    .filter(|p| p["type"] == "text" && p["synthetic"] != true)
                    .filter_map(|p| p["text"].as_str())
                    .collect();
                let at = message["time"]["created"].as_i64();
                if !words.is_empty() {
                    builder.user(&words.join("\n\n"), at);
                }
            }
            Some("assistant") => answer(&message, &own, builder),
            _ => {}
        }
    }
    Ok(converted)
}

fn answer(message: &Value, parts: &[Value], builder: &mut Builder) {
    let model = match (message["providerID"].as_str(), message["modelID"].as_str()) {
        (Some(provider), Some(model)) => Some(format!("{provider}/{model}")),
        _ => None,
    };
    let model = model.as_deref();
    let at = message["time"]["created"].as_i64();
    builder.new_step(model, at);
    for part in parts {
        let at = part["time"]["start"].as_i64().or(at);
        match part["type"].as_str() {
            Some("text") if part["synthetic"] != true => {
                builder.text(part["text"].as_str().unwrap_or_default(), model, at)
            }
            Some("reasoning") => builder.reasoning(
                part["text"].as_str().unwrap_or_default(),
                part["metadata"]["anthropic"]["signature"]
                    .as_str()
                    .map(str::to_owned),
                at,
            ),
            Some("tool") => tool(part, model, builder),
            Some("step-finish") => builder.end_step(
                Some(usage(&part["tokens"])),
                (part["reason"] == "stop").then_some(FinishReason::Stop),
            ),
            _ => {}
        }
    }
}

fn tool(part: &Value, model: Option<&str>, builder: &mut Builder) {
    let state = &part["state"];
    let id = part["callID"].as_str().unwrap_or_default();
    let name = part["tool"].as_str().unwrap_or_default();
    let (start, end) = (
        state["time"]["start"].as_i64(),
        state["time"]["end"].as_i64(),
    );
    builder.call(id, name, state["input"].clone(), model, start);
    match state["status"].as_str() {
        Some("completed") => {
            let output = state["output"].as_str().unwrap_or_default().to_owned();
            builder.result(id, output, false, diffs(name, state), end);
        }
        Some("error") => {
            let error = state["error"].as_str().unwrap_or_default().to_owned();
            builder.result(id, error, true, Vec::new(), end);
        }
        _ => {}
    }
}

/// A write's new file, or an edit's recorded diff.
fn diffs(tool: &str, state: &Value) -> Vec<FileDiff> {
    let input = &state["input"];
    let path = input["filePath"].as_str().unwrap_or_default();
    match tool {
        "write" if state["metadata"]["exists"] == false => vec![FileDiff {
            path: PathBuf::from(path),
            old_text: None,
            new_text: input["content"].as_str().unwrap_or_default().to_owned(),
        }],
        _ => match state["metadata"]["diff"].as_str() {
            Some(diff) => vec![from_unified(path, diff, false)],
            None => Vec::new(),
        },
    }
}

fn usage(tokens: &Value) -> Usage {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    Usage {
        input: n(&tokens["input"]),
        output: n(&tokens["output"]),
        reasoning: n(&tokens["reasoning"]),
        cache_read: n(&tokens["cache"]["read"]),
        cache_write: n(&tokens["cache"]["write"]),
    }
}
