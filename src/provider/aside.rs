//! A model asked aside from the conversation (a title, a goal's verdict): the small model
//! beside the turn's unless one is named, one request, and its answer's text whole.

use futures::StreamExt;

use super::{ModelRequest, ProviderError, ResolvedModel, StreamEvent};
use crate::config::LoadedConfig;

/// `preferred` if it resolves, else the small model beside `turn` (the config's `small_model`,
/// or the provider's by the catalog), else the turn's model itself.
pub fn model(
    config: &LoadedConfig,
    preferred: Option<String>,
    turn: Option<&str>,
) -> Result<ResolvedModel, ProviderError> {
    let turn_name = turn
        .map(str::to_owned)
        .or_else(|| super::default_model_name(config));
    let small = preferred.or_else(|| {
        turn_name
            .as_deref()
            .and_then(|turn| super::choose::small_model(config, turn))
    });
    small
        .and_then(|name| super::resolve(config, Some(&name)).ok())
        .map_or_else(|| super::resolve(config, turn), Ok)
}

/// Asks `model` once; the text of its answer.
pub async fn text(model: &ResolvedModel, request: ModelRequest) -> Result<String, ProviderError> {
    let mut events = model.client.stream(request).await?;
    let mut answer = String::new();
    while let Some(event) = events.next().await {
        if let StreamEvent::TextDelta(delta) = event? {
            answer.push_str(&delta);
        }
    }
    Ok(answer)
}
