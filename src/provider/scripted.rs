//! The scripted provider: replays a JSON script of turns (text, reasoning, tool calls) with
//! no network. It drives the demo and the benchmarks, and always names itself as scripted.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

use super::{EventStream, ModelClient, ModelMessage, ModelRequest, ProviderError, StreamEvent};
use crate::message::{FinishReason, Usage};

/// A script: model call N replays turn N (counting the assistant messages already in the
/// conversation), wrapping around, so a session replays the same way in every process.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub turns: Vec<Vec<ScriptEvent>>,
}

/// One step of a scripted turn.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ScriptEvent {
    /// Streamed word by word.
    Text(String),
    /// Streamed word by word as reasoning.
    Reasoning(String),
    ToolCall {
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// Overrides the estimated usage.
    Usage(Usage),
    /// Overrides the finish reason (`stop`, `length`, `content_filter`, `tool_calls`).
    Finish(FinishReason),
    /// Pauses the stream.
    SleepMs(u64),
}

const DEMO: &str = include_str!("scripted_demo.json");

impl Script {
    /// The built-in demo used when no model is configured for `tandem run`.
    pub fn demo() -> Self {
        serde_json::from_str(DEMO).expect("the built-in demo script is valid")
    }

    pub fn from_file(path: &Path) -> Result<Self, ProviderError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ProviderError::Config(format!("cannot read script {}: {e}", path.display()))
        })?;
        serde_json::from_str(&text).map_err(|e| {
            ProviderError::Config(format!("script {} is not valid: {e}", path.display()))
        })
    }
}

pub struct ScriptedClient {
    pub script: Script,
}

/// Splits text into word-sized chunks that keep their leading whitespace.
fn word_chunks(text: &str) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    for ch in text.chars() {
        if ch.is_whitespace() && !current.trim().is_empty() {
            chunks.push(std::mem::take(&mut current));
        }
        current.push(ch);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

/// A turn's events with the pause before each, and what the turn's end reports.
struct Played {
    events: Vec<(u64, StreamEvent)>,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    output_chars: usize,
    calls: usize,
    /// The pause still owed before the end.
    pause: u64,
}

fn play(turn: Vec<ScriptEvent>) -> Played {
    let mut events: Vec<(u64, StreamEvent)> = Vec::new();
    let mut usage = None;
    let mut finish = None;
    let mut output_chars = 0usize;
    let mut calls = 0usize;
    let mut pause = 0u64;
    for event in turn {
        match event {
            ScriptEvent::Text(text) => {
                output_chars += text.len();
                for chunk in word_chunks(&text) {
                    events.push((std::mem::take(&mut pause), StreamEvent::TextDelta(chunk)));
                }
            }
            ScriptEvent::Reasoning(text) => {
                output_chars += text.len();
                for chunk in word_chunks(&text) {
                    events.push((
                        std::mem::take(&mut pause),
                        StreamEvent::ReasoningDelta(chunk),
                    ));
                }
            }
            ScriptEvent::ToolCall { name, input } => {
                calls += 1;
                let id = format!("call_{}", crate::id::ulid());
                let input = if input.is_null() {
                    Value::Object(Default::default())
                } else {
                    input
                };
                let arguments = input.to_string();
                output_chars += arguments.len();
                events.push((
                    std::mem::take(&mut pause),
                    StreamEvent::ToolCallStart {
                        id: id.clone(),
                        name: name.clone(),
                    },
                ));
                events.push((
                    0,
                    StreamEvent::ToolCall {
                        id,
                        name,
                        arguments,
                    },
                ));
            }
            ScriptEvent::Usage(u) => usage = Some(u),
            ScriptEvent::Finish(f) => finish = Some(f),
            ScriptEvent::SleepMs(ms) => pause += ms,
        }
    }
    Played {
        events,
        usage,
        finish,
        output_chars,
        calls,
        pause,
    }
}

impl ModelClient for ScriptedClient {
    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, ProviderError>> {
        Box::pin(async move {
            if self.script.turns.is_empty() {
                return Err(ProviderError::Config("the script has no turns".into()));
            }
            let step = request
                .messages
                .iter()
                .filter(|m| matches!(m, ModelMessage::Assistant(_)))
                .count();
            let turn = self.script.turns[step % self.script.turns.len()].clone();
            let Played {
                mut events,
                usage,
                finish,
                output_chars,
                calls,
                pause,
            } = play(turn);
            let usage = usage.unwrap_or(Usage {
                input: super::estimate_tokens(&request),
                output: super::tokens(output_chars),
                ..Usage::default()
            });
            let finish = finish.unwrap_or(if calls > 0 {
                FinishReason::ToolCalls
            } else {
                FinishReason::Stop
            });
            events.push((pause, StreamEvent::Usage(usage)));
            events.push((0, StreamEvent::Finish(finish)));
            let stream = futures::stream::iter(events).then(|(pause, event)| async move {
                if pause > 0 {
                    tokio::time::sleep(Duration::from_millis(pause)).await;
                }
                Ok(event)
            });
            Ok(stream.boxed())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_their_spaces() {
        assert_eq!(
            word_chunks("Hello  big world"),
            ["Hello", "  big", " world"]
        );
        assert_eq!(word_chunks(""), Vec::<String>::new());
    }

    #[test]
    fn the_demo_script_parses() {
        assert!(Script::demo().turns.len() >= 2);
    }
}
