//! The fallback chain (`fallback`): when the turn's model answers a usage limit, an overload or
//! a server error after its own retries, the next model of the list that resolves takes the
//! step again; the person is told, and the failed answer stays in the session as the record.

use crate::bus::Event;
use crate::id::{MessageId, PartId};
use crate::provider::{self, ProviderError};
use crate::session::core::state::SessionState;

use super::setup::TurnSetup;

/// Whether another model may answer in place of one that failed with `error`: a usage limit
/// (429), or the provider overloaded or failing (5xx, Anthropic's 529 among them).
pub(in crate::session) fn applies(error: &ProviderError) -> bool {
    matches!(error, ProviderError::Http { status, .. } if *status == 429 || *status >= 500)
}

/// Switches the turn to the next model of the chain it has not left yet; false when none is
/// left (the error then ends the turn).
pub(in crate::session) fn switch(
    state: &SessionState,
    setup: &mut TurnSetup,
    error: &ProviderError,
) -> bool {
    let failed = setup.model.full_id();
    setup.left_models.push(failed.clone());
    let chain = &state.config.config.fallback;
    let next = chain
        .iter()
        .filter(|name| !setup.left_models.contains(name))
        .find_map(|name| match provider::resolve(&state.config, Some(name)) {
            Ok(model) => Some(model),
            Err(why) => {
                tracing::warn!(model = %name, %why, "a fallback model cannot be used");
                None
            }
        });
    let Some(model) = next else {
        return false;
    };
    let variant = state.settings.variant_for(&setup.agent, &model);
    setup.options = model.options.request(variant.as_deref());
    let notice = format!(
        "\n{failed} failed after its retries ({error}); going on with {} (`fallback`).\n\n",
        model.full_id()
    );
    tracing::info!(from = %failed, to = %model.full_id(), "falling back to another model");
    setup.model = model;
    setup.writer.publish(Event::TextDelta {
        session_id: state.info.id.clone(),
        message_id: MessageId::new(),
        part_id: PartId::new(),
        delta: notice,
    });
    true
}
