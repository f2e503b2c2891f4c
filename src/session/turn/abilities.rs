//! What the chosen model cannot do, said before the request instead of as a provider's error
//! after it: a model the catalog says calls no tools, or reads no images when the prompt has
//! one. Models the catalog does not know are not checked.

use crate::config::LoadedConfig;
use crate::message::PartBody;
use crate::session::error::SessionError;

/// Refuses a turn of `model` with `content` that the model cannot take.
pub(in crate::session) fn check(
    config: &LoadedConfig,
    model: &str,
    content: &[PartBody],
) -> Result<(), SessionError> {
    let Some(abilities) = crate::provider::abilities(config, model) else {
        return Ok(());
    };
    if !abilities.tools {
        return Err(SessionError::Unsupported(format!(
            "The model {model} ({}) cannot call tools, and Tandem works through them: choose \
             another model (the editor's model selector, or `tandem models` for the list).",
            abilities.name
        )));
    }
    let has_image = content
        .iter()
        .any(|part| matches!(part, PartBody::File { mime, .. } if mime.starts_with("image/")));
    if has_image && !abilities.images {
        return Err(SessionError::Unsupported(format!(
            "The model {model} ({}) does not read images: send the prompt without the image, or \
             choose a model that reads them.",
            abilities.name
        )));
    }
    Ok(())
}
