//! What the provider does on its own within an answer (its web search): each search shown as
//! a `websearch` call marked hosted, from started to its pages, and the pages the answer cites
//! kept as one sources part after it.

use serde_json::json;

use super::Draft;
use crate::id::{PartId, now_ms};
use crate::message::{PartBody, Source, ToolKind, ToolPart, ToolState};
use crate::store::StoreError;
use crate::tool::websearch;

impl Draft {
    /// The provider began a search: shown at once, running.
    pub(super) fn on_search_started(&mut self, id: String) -> Result<(), StoreError> {
        self.close_open()?;
        if self.tool_part_id(&id).is_some() {
            return Ok(());
        }
        let state = ToolState::Running {
            input: json!({}),
            title: None,
            started_at: now_ms(),
        };
        self.save(PartBody::tool(hosted_call(id, state, None)), None)
    }

    /// The provider's search ended: its query and the pages it found (or why it failed).
    pub(super) fn on_search_done(
        &mut self,
        id: String,
        query: String,
        sources: Vec<Source>,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        if self.tool_part_id(&id).is_none() {
            self.on_search_started(id.clone())?;
        }
        let part = self.tool_part_id(&id);
        let started_at = self
            .parts
            .iter()
            .find_map(|p| match &p.body {
                PartBody::Tool(call) if call.call_id == id => match call.state {
                    ToolState::Running { started_at, .. } => Some(started_at),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or_else(now_ms);
        let input = json!({"query": query});
        let title = format!("Search: {query} ({} results)", sources.len());
        let state = match error {
            Some(error) => ToolState::Error {
                input,
                error: error.clone(),
                shown: None,
                started_at,
                ended_at: now_ms(),
            },
            None => ToolState::Completed {
                input,
                output: listing(&query, &sources),
                title: title.clone(),
                metadata: json!({"hosted": true,
                    "urls": sources.iter().map(|s| s.url.as_str()).collect::<Vec<_>>()}),
                diffs: Vec::new(),
                attachments: Vec::new(),
                terminal_id: None,
                started_at,
                ended_at: now_ms(),
            },
        };
        self.save(PartBody::tool(hosted_call(id, state, Some(title))), part)
    }

    /// The answer cites a page (each page once, in the order first cited).
    pub(super) fn on_citation(&mut self, source: Source) {
        if !self.citations.iter().any(|c| c.url == source.url) {
            self.citations.push(source);
        }
    }

    /// The answer is over: a search the provider never finished fails, and the pages cited
    /// follow the words as a part of their own.
    pub(super) fn close_hosted(&mut self) -> Result<(), StoreError> {
        self.fail_hosted("The provider's search did not finish.")?;
        if self.citations.is_empty() {
            return Ok(());
        }
        self.close_open()?;
        let sources = std::mem::take(&mut self.citations);
        self.save(PartBody::Sources { sources }, None)
    }

    /// Marks the provider's searches still running as failed with `error`.
    pub(super) fn fail_hosted(&mut self, error: &str) -> Result<(), StoreError> {
        let unfinished: Vec<(PartId, ToolPart)> = self
            .parts
            .iter()
            .filter_map(|p| match &p.body {
                PartBody::Tool(call) if call.hosted && !call.state.is_finished() => {
                    Some((p.id.clone(), (**call).clone()))
                }
                _ => None,
            })
            .collect();
        for (id, call) in unfinished {
            let state = ToolState::Error {
                input: call.state.input().clone(),
                error: error.to_owned(),
                shown: None,
                started_at: now_ms(),
                ended_at: now_ms(),
            };
            self.save(PartBody::tool(ToolPart { state, ..call }), Some(id))?;
        }
        Ok(())
    }
}

/// A search the provider runs, as a `websearch` call.
fn hosted_call(call_id: String, state: ToolState, title: Option<String>) -> ToolPart {
    ToolPart {
        call_id,
        tool: websearch::NAME.into(),
        kind: Some(ToolKind::Fetch),
        state,
        title,
        locations: Vec::new(),
        pruned_at: None,
        hosted: true,
    }
}

/// The pages a search found, as the person reads them in the call.
fn listing(query: &str, sources: &[Source]) -> String {
    if sources.is_empty() {
        return format!("Searched the web for \"{query}\".");
    }
    let mut text = format!("Searched the web for \"{query}\":\n");
    for (n, source) in sources.iter().enumerate() {
        match &source.title {
            Some(title) => text.push_str(&format!("\n{}. {title}\n   {}", n + 1, source.url)),
            None => text.push_str(&format!("\n{}. {}", n + 1, source.url)),
        }
    }
    text
}
