//! `/diagnostics`: the person's view of the project's language servers and formatters (which
//! were found, which run and in what state), answered at once by the handle like `/jobs`.

use std::path::PathBuf;
use std::sync::Arc;

use crate::command::DIAGNOSTICS;
use crate::config::LoadedConfig;
use crate::message::PartBody;

/// What the report needs: the process's servers, the session's config and project.
#[derive(Clone)]
pub(in crate::session) struct CodeView {
    pub lsp: Arc<crate::lsp::Lsp>,
    pub config: Arc<LoadedConfig>,
    pub cwd: PathBuf,
}

/// The answer to `content` if it is `/diagnostics`; None otherwise.
pub(in crate::session) fn command(content: &[PartBody], view: &CodeView) -> Option<String> {
    let rest = crate::message::sole_text(content)?
        .trim()
        .strip_prefix('/')?
        .strip_prefix(DIAGNOSTICS)?;
    if !rest.trim().is_empty() {
        return None;
    }
    Some(crate::lsp::report(&view.config, &view.cwd, Some(&view.lsp)))
}
