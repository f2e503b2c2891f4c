//! Tandem's own transcripts (`tandem sessions export --format json`, best with
//! `--with-tools`): the words of each message, and each tool call with its input and output
//! where the export holds them; the round trip of an export from another machine.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::build::Builder;
use super::{Agent, Converted, Found};

/// The export in `value` (read from `path`), if it is one.
pub fn describe(path: &Path, value: &Value) -> Option<Found> {
    value["messages"].as_array()?;
    let time = |key: &str| value["time"][key].as_i64().unwrap_or(0);
    Some(Found {
        agent: Agent::Tandem,
        source_id: value["id"].as_str()?.to_owned(),
        path: path.to_owned(),
        cwd: PathBuf::from(value["directory"].as_str()?),
        title: value["title"].as_str().map(str::to_owned),
        created_at: time("created"),
        updated_at: time("updated"),
        version: None,
    })
}

pub fn read(found: &Found, builder: &mut Builder) -> Result<Converted, String> {
    let text = std::fs::read_to_string(&found.path)
        .map_err(|e| format!("cannot read {}: {e}", found.path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("it is not a Tandem export ({e})"))?;
    let mut converted = Converted::default();
    for (n, message) in value["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = message["time"].as_i64();
        let text = message["text"].as_str().unwrap_or_default();
        match message["role"].as_str() {
            Some("user") => builder.user(text, at),
            Some("assistant") => {
                let model = message["model"].as_str();
                builder.new_step(model, at);
                if !text.is_empty() {
                    builder.text(text, model, at);
                }
                for (k, call) in message["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let id = call["id"]
                        .as_str()
                        .map_or_else(|| format!("imported_{n}_{k}"), str::to_owned);
                    let tool = call["tool"].as_str().unwrap_or("unknown");
                    let input = match &call["input"] {
                        Value::Null => Value::Object(Default::default()),
                        input => input.clone(),
                    };
                    builder.call(&id, tool, input, model, at);
                    let output = call["output"].as_str().unwrap_or_default().to_owned();
                    builder.result(&id, output, call["status"] == "error", Vec::new(), at);
                }
            }
            _ => converted.skipped_lines += 1,
        }
    }
    Ok(converted)
}
