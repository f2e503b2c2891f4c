//! A Gemini CLI session (or saved chat) as Tandem messages: the person's words, each answer's
//! thoughts, words and tool calls (whole, with their diffs, where the file kept them; else as
//! the API's parts, their results from the function responses that follow).

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::Value;

use super::{checkpoint, record, words};
use crate::import::build::Builder;
use crate::import::{Converted, Found, tools};
use crate::message::{FileDiff, Usage};

/// The session as Tandem messages; unreadable lines are skipped and counted.
pub fn read(found: &Found, builder: &mut Builder) -> Result<Converted, String> {
    let text = std::fs::read_to_string(&found.path)
        .map_err(|e| format!("cannot read {}: {e}", found.path.display()))?;
    let (messages, skipped) = match checkpoint(&text) {
        Some(history) => (history, 0),
        None => {
            let record = record(&text).ok_or("it is not a Gemini CLI session")?;
            (record.messages, record.skipped)
        }
    };
    let mut answered = HashSet::new();
    for message in &messages {
        let at = message["timestamp"]
            .as_str()
            .and_then(crate::import::timestamp);
        if let Some(words) = words(message) {
            builder.user(&words, at);
        } else if message["type"] == "gemini" {
            answer(message, at, builder, &mut answered);
        } else {
            responses(message, at, builder, &mut answered);
        }
    }
    Ok(Converted {
        skipped_lines: skipped,
    })
}

/// One model answer: its thoughts, its words, its tool calls with their results.
fn answer(message: &Value, at: Option<i64>, builder: &mut Builder, answered: &mut HashSet<String>) {
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
    match &message["content"] {
        Value::String(text) if !text.is_empty() => builder.text(text, model, at),
        Value::Array(list) => parts(list, model, at, builder),
        _ => {}
    }
    for call in message["toolCalls"].as_array().into_iter().flatten() {
        let id = call["id"].as_str().unwrap_or_default();
        let (name, input) =
            tools::from_gemini(call["name"].as_str().unwrap_or_default(), &call["args"]);
        builder.call(id, &name, input, model, at);
        let (output, failed) = output_of(&call["result"][0]["functionResponse"]["response"]);
        let error = failed || call["status"].as_str().is_some_and(|s| s != "success");
        let ended = call["timestamp"]
            .as_str()
            .and_then(crate::import::timestamp);
        let diffs = diff(&call["resultDisplay"]).into_iter().collect();
        builder.result(id, output, error, diffs, ended);
        answered.insert(id.to_owned());
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

/// The API's parts of an answer: thoughts, words and function calls.
fn parts(parts: &[Value], model: Option<&str>, at: Option<i64>, builder: &mut Builder) {
    for part in parts {
        if let Some(text) = part["text"].as_str().filter(|t| !t.is_empty()) {
            match part["thought"] == true {
                true => builder.reasoning(text, None, at),
                false => builder.text(text, model, at),
            }
        } else if let Some(name) = part["functionCall"]["name"].as_str() {
            let id = part["functionCall"]["id"].as_str().unwrap_or(name);
            let (name, input) = tools::from_gemini(name, &part["functionCall"]["args"]);
            builder.call(id, &name, input, model, at);
        }
    }
}

/// The results in a message of the API's parts (`functionResponse`), for calls not answered
/// yet (some files hold a result twice).
fn responses(
    message: &Value,
    at: Option<i64>,
    builder: &mut Builder,
    answered: &mut HashSet<String>,
) {
    for part in message["content"].as_array().into_iter().flatten() {
        let response = &part["functionResponse"];
        let Some(id) = response["id"].as_str().or(response["name"].as_str()) else {
            continue;
        };
        if answered.insert(id.to_owned()) {
            let (output, error) = output_of(&response["response"]);
            builder.result(id, output, error, Vec::new(), at);
        }
    }
}

/// A function response's text, and whether it is an error.
fn output_of(response: &Value) -> (String, bool) {
    match (response["output"].as_str(), response["error"].as_str()) {
        (Some(output), _) => (output.to_owned(), false),
        (None, Some(error)) => (error.to_owned(), true),
        (None, None) if response.is_null() => (String::new(), false),
        (None, None) => (response.to_string(), false),
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
