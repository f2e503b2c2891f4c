//! Session titles: the placeholder a new session gets, the first-line title its first prompt
//! gives it at once, and the better one the hidden `title` agent writes in the background.

use std::sync::Arc;

use crate::agent;
use crate::bus::{Bus, Event};
use crate::config::{LoadedConfig, ProviderApi};
use crate::message::{PartBody, SessionInfo};
use crate::provider;
use crate::provider::{ModelMessage, ModelRequest, UserContent};
use crate::store::Store;

const DEFAULT_PREFIX: &str = "New session - ";
/// The longest title kept, in characters.
const MAX_TITLE: usize = 50;
/// How much of the first prompt the title model reads.
const MAX_PROMPT_CHARS: usize = 4_000;

/// The placeholder title of a session created at `now` (ms since the epoch).
pub(in crate::session) fn default_title(now: i64) -> String {
    format!("{DEFAULT_PREFIX}{}", crate::id::iso8601(now))
}

pub(in crate::session) fn is_default_title(title: &str) -> bool {
    title.starts_with(DEFAULT_PREFIX)
}

/// The longest title a person may give (`session/set_title`), in characters.
const MAX_PERSON_TITLE: usize = 200;

/// A title the person gave, as it is kept: one line, at most 200 characters; None when
/// nothing is left.
pub(in crate::session) fn from_person(title: &str) -> Option<String> {
    crate::utf8::one_line(title, MAX_PERSON_TITLE)
}

/// The person's words in `content` (its non-synthetic text).
pub(in crate::session) fn prompt_text(content: &[PartBody]) -> String {
    content
        .iter()
        .filter_map(|part| match part {
            PartBody::Text {
                text,
                synthetic: false,
            } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A title from the first prompt: its first non-empty line, at most 50 characters.
pub(in crate::session) fn from_prompt(content: &[PartBody]) -> Option<String> {
    let text = prompt_text(content);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(shorten(line))
}

fn shorten(line: &str) -> String {
    crate::utf8::one_line(line, MAX_TITLE).unwrap_or_default()
}

/// The model's answer as a title: thinking stripped, its first line, no quotes, ≤ 50 chars.
fn clean(answer: &str) -> Option<String> {
    let answer = crate::session::turn::compaction::strip_thinking(answer);
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line
        .trim_start_matches(['#', '*', ' '])
        .trim_start_matches("Title:")
        .trim()
        .trim_matches(['"', '\'', '`', '*'])
        .trim_end_matches('.')
        .trim();
    (!line.is_empty()).then(|| shorten(line))
}

/// What the title writer needs, taken when the first prompt is stored.
pub(in crate::session) struct TitleJob {
    pub session: SessionInfo,
    /// The first-line title the session has now; replaced only if it is still the title.
    pub fallback: String,
    pub prompt: String,
    pub config: Arc<LoadedConfig>,
    /// The turn's model, used when no `small_model` is configured.
    pub model: Option<String>,
    pub store: Arc<Store>,
    pub bus: Arc<Bus>,
}

impl TitleJob {
    pub fn new(
        session: SessionInfo,
        content: &[PartBody],
        config: Arc<LoadedConfig>,
        model: Option<String>,
        store: Arc<Store>,
        bus: Arc<Bus>,
    ) -> Self {
        Self {
            fallback: session.title.clone(),
            session,
            prompt: prompt_text(content)
                .chars()
                .take(MAX_PROMPT_CHARS)
                .collect(),
            config,
            model,
            store,
            bus,
        }
    }

    /// Runs in the background: asks the title model, stores and announces its title. Any
    /// failure keeps the first-line title (and is only logged).
    pub fn spawn(self) {
        tokio::spawn(async move {
            if let Err(error) = self.run().await {
                tracing::info!(session = %self.session.id, %error, "no generated title");
            }
        });
    }

    async fn run(&self) -> Result<(), String> {
        // The `title` agent's own model, else the small model beside the turn's (the config's
        // `small_model`, or the provider's by the catalog), else the turn's.
        let title_model = self
            .config
            .config
            .agent
            .get("title")
            .and_then(|a| a.model.clone());
        let model = provider::aside::model(&self.config, title_model, self.model.as_deref())
            .map_err(|e| e.to_string())?;
        // A scripted model replays a script: it has no title to give.
        if model.api == ProviderApi::Scripted {
            return Ok(());
        }
        let title_agent = self.config.config.agent.get("title");
        let system = title_agent
            .and_then(|a| a.prompt.clone())
            .unwrap_or_else(|| agent::TITLE_PROMPT.to_owned());
        let request = ModelRequest {
            model: model.api_model.clone(),
            system: vec![system].into(),
            messages: vec![ModelMessage::User(vec![UserContent::Text(format!(
                "Write the title of a conversation that begins with this message from the \
                 person:\n<message>\n{}\n</message>",
                self.prompt
            ))])],
            max_output_tokens: Some(512),
            ..ModelRequest::default()
        };
        let answer = provider::aside::text(&model, request)
            .await
            .map_err(|e| e.to_string())?;
        let title = clean(&answer).ok_or("the title model gave no title")?;
        let now = crate::id::now_ms();
        let replaced = self
            .store
            .replace_session_title(&self.session.id, &self.fallback, &title, now)
            .map_err(|e| e.to_string())?;
        if replaced {
            let info = SessionInfo {
                title,
                updated_at: now,
                ..self.session.clone()
            };
            self.bus.publish(Event::SessionUpdated { info });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persons_title_becomes_one_trimmed_line() {
        assert_eq!(
            from_person("  Fix\nthe   build\t").as_deref(),
            Some("Fix the build")
        );
        assert_eq!(from_person(" \n\t "), None);
        let long = from_person(&"x".repeat(500)).unwrap();
        assert_eq!(long.chars().count(), 200);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn titles_come_from_the_first_line() {
        let text = |t: &str| {
            vec![PartBody::Text {
                text: t.into(),
                synthetic: false,
            }]
        };
        assert_eq!(
            from_prompt(&text("\n  Fix the bug\nin main")).as_deref(),
            Some("Fix the bug")
        );
        let long = "a".repeat(60);
        assert_eq!(from_prompt(&text(&long)).unwrap().chars().count(), 50);
        assert_eq!(from_prompt(&text("   ")), None);
        assert!(is_default_title(&default_title(0)));
    }

    #[test]
    fn model_answers_are_cleaned() {
        assert_eq!(
            clean("<think>the user wants…</think>\n\"Fix flaky login test.\"\n").as_deref(),
            Some("Fix flaky login test")
        );
        assert_eq!(
            clean("Title: Explain caching").as_deref(),
            Some("Explain caching")
        );
        assert_eq!(clean("  \n").as_deref(), None);
        assert_eq!(clean(&"x".repeat(80)).unwrap().chars().count(), 50);
    }
}
