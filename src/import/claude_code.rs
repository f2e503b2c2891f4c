//! Claude Code's sessions: one JSONL transcript per session under
//! `~/.claude/projects/<the project's path, each character outside [A-Za-z0-9] a "-">/`
//! (`CLAUDE_CONFIG_DIR` for `~/.claude`), read line by line: the person's prompts, each model
//! answer (its lines share `message.id`) with thinking, words and tool calls, and each tool
//! result with the file it created or edited, as a diff.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::build::Builder;
use super::{Agent, Converted, Found, tools};
use crate::message::{FileDiff, Usage};

/// The folder name Claude Code gives a project's transcripts.
fn mangled(project: &Path) -> String {
    project
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The transcripts of `project`.
pub fn list(project: &Path) -> Vec<Found> {
    let Some(dir) =
        crate::config::plugins::claude_home().map(|h| h.join("projects").join(mangled(project)))
    else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut found: Vec<Found> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter_map(|path| describe(&path, project))
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.updated_at));
    found
}

/// How many of a transcript's first lines are read for its project, version and prompt.
const HEAD_LINES: usize = 200;

/// A transcript's id, title, times and version. Only what tells them is parsed: its first
/// lines, its last, and the last line naming a title (a listing of a thousand long
/// transcripts reads them, but parses a few lines of each).
pub fn describe(path: &Path, project: &Path) -> Option<Found> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut found = Found {
        agent: Agent::ClaudeCode,
        source_id: path.file_stem()?.to_string_lossy().into_owned(),
        path: path.to_owned(),
        cwd: project.to_owned(),
        title: None,
        created_at: 0,
        updated_at: 0,
        version: None,
    };
    let mut first_prompt = None;
    // The person's first prompt holds all of it; other early lines can be long (a request's
    // whole system prompt) and are not parsed.
    for record in text
        .lines()
        .take(HEAD_LINES)
        .filter(|l| l.contains("\"type\":\"user\""))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if found.created_at == 0 {
            found.created_at = timestamp(&record).unwrap_or(0);
        }
        if found.version.is_none() {
            found.version = record["version"].as_str().map(str::to_owned);
        }
        if let Some(cwd) = record["cwd"].as_str() {
            found.cwd = PathBuf::from(cwd);
        }
        if first_prompt.is_none() && record["type"] == "user" && record["isMeta"] != true {
            first_prompt = record["message"]["content"].as_str().map(str::to_owned);
        }
        if first_prompt.is_some() && found.version.is_some() {
            break;
        }
    }
    found.updated_at = text
        .lines()
        .rev()
        .find_map(|l| timestamp(&serde_json::from_str(l).ok()?))
        .unwrap_or(found.created_at);
    found.title = named_title(&text).or_else(|| first_prompt.map(|p| super::title_from(&p)));
    Some(found)
}

/// The title the transcript names last: one the person gave, Claude Code's, or a summary's.
fn named_title(text: &str) -> Option<String> {
    ["\"customTitle\"", "\"aiTitle\"", "\"summary\""]
        .iter()
        .filter_map(|key| {
            let at = text.rfind(key)?;
            let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
            let record: Value = serde_json::from_str(&text[start..end]).ok()?;
            let title = ["customTitle", "aiTitle", "summary"]
                .iter()
                .find_map(|k| record[*k].as_str())?;
            Some((start, title.to_owned()))
        })
        .max_by_key(|(start, _)| *start)
        .map(|(_, title)| title)
}

fn timestamp(record: &Value) -> Option<i64> {
    super::timestamp(record["timestamp"].as_str()?)
}

/// The transcript as Tandem messages; lines that cannot be read are skipped and counted.
pub fn read(found: &Found, builder: &mut Builder) -> Result<Converted, String> {
    let text = std::fs::read_to_string(&found.path)
        .map_err(|e| format!("cannot read {}: {e}", found.path.display()))?;
    let mut converted = Converted::default();
    let mut answer: Option<String> = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            converted.skipped_lines += 1;
            continue;
        };
        if record["isSidechain"] == true || record["isMeta"] == true {
            continue;
        }
        let at = timestamp(&record);
        match record["type"].as_str() {
            Some("user") => {
                answer = None;
                user(&record, at, builder);
            }
            Some("assistant") => assistant(&record, at, &mut answer, builder),
            _ => {}
        }
    }
    Ok(converted)
}

fn user(record: &Value, at: Option<i64>, builder: &mut Builder) {
    match &record["message"]["content"] {
        Value::String(text) => builder.user(text, at),
        Value::Array(blocks) => {
            for block in blocks {
                match block["type"].as_str() {
                    Some("tool_result") => {
                        let id = block["tool_use_id"].as_str().unwrap_or_default();
                        let output = result_text(&block["content"]);
                        let error = block["is_error"] == true;
                        builder.result(id, output, error, diffs(&record["toolUseResult"]), at);
                    }
                    Some("text") => builder.user(block["text"].as_str().unwrap_or_default(), at),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn assistant(record: &Value, at: Option<i64>, answer: &mut Option<String>, builder: &mut Builder) {
    let message = &record["message"];
    let id = message["id"].as_str().map(str::to_owned);
    let model = message["model"].as_str().map(|m| format!("anthropic/{m}"));
    let model = model.as_deref();
    if id != *answer {
        builder.new_step(model, at);
        *answer = id;
    }
    for block in message["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("thinking") => builder.reasoning(
                block["thinking"].as_str().unwrap_or_default(),
                block["signature"].as_str().map(str::to_owned),
                at,
            ),
            Some("text") => builder.text(block["text"].as_str().unwrap_or_default(), model, at),
            Some("tool_use") => {
                let (name, input) = tools::from_claude_code(
                    block["name"].as_str().unwrap_or_default(),
                    &block["input"],
                );
                builder.call(
                    block["id"].as_str().unwrap_or_default(),
                    &name,
                    input,
                    model,
                    at,
                );
            }
            _ => {}
        }
    }
    if let Some(usage) = message.get("usage").filter(|u| u.is_object()) {
        builder.usage(usage_of(usage));
    }
}

fn usage_of(usage: &Value) -> Usage {
    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
    Usage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        reasoning: 0,
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
    }
}

/// A tool result's content as text.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The file a `Write` or `Edit` changed, whole before and after, from its `toolUseResult`.
fn diffs(result: &Value) -> Vec<FileDiff> {
    let Some(path) = result["filePath"].as_str() else {
        return Vec::new();
    };
    let before = result["originalFile"].as_str().map(str::to_owned);
    let after = match (result["content"].as_str(), &before) {
        (Some(content), _) if result["type"] == "create" || before.is_none() => content.to_owned(),
        (_, Some(before)) => {
            let (old, new) = (
                result["oldString"].as_str().unwrap_or_default(),
                result["newString"].as_str().unwrap_or_default(),
            );
            match (result["replaceAll"] == true, old.is_empty()) {
                (_, true) => before.clone(),
                (true, false) => before.replace(old, new),
                (false, false) => before.replacen(old, new, 1),
            }
        }
        _ => return Vec::new(),
    };
    vec![FileDiff {
        path: PathBuf::from(path),
        old_text: before,
        new_text: after,
    }]
}
