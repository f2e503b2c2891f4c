//! A session's folder trust, settled before each prompt of a top-level session: the person is
//! asked when a folder (or a Claude Code plugin) brings something not answered for, and a session whose config was
//! loaded under another standing is opened again under the new one (between turns).

use std::sync::Arc;

use super::manager::SessionManager;
use crate::id::SessionId;
use crate::session::error::SessionError;
use crate::tool::ClientPort;

impl SessionManager {
    /// Asks about the session's folder if it must, then makes sure the open session works
    /// under the folder's standing now (a subagent's follows its caller's, set when it opened).
    pub async fn settle_trust(
        &self,
        id: &SessionId,
        port: &Arc<dyn ClientPort>,
    ) -> Result<(), SessionError> {
        let info = self
            .store()
            .get_session(id)?
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        if info.parent_id.is_some() {
            return Ok(());
        }
        let _one_question = self.trust_asked.lock().await;
        // The project first, then each other root of the workspace: one question per folder,
        // and each folder's standing as it is after its answer.
        let mut standings = Vec::new();
        for folder in std::iter::once(&info.cwd).chain(&info.extra_roots) {
            let mut assessment = crate::trust::assess(folder);
            if assessment.needs_asking() {
                crate::trust::ask(&assessment, id, port.as_ref()).await;
                assessment = crate::trust::assess(folder);
            }
            standings.push((folder.clone(), assessment.standing()));
        }
        // Then each Claude Code plugin that would start something, one question each.
        let folders: Vec<&std::path::Path> = std::iter::once(&info.cwd)
            .chain(&info.extra_roots)
            .map(|f| f.as_path())
            .collect();
        let mut plugins = Vec::new();
        for plugin in crate::config::plugins::enabled(&folders) {
            let mut assessment = crate::trust::plugin::assess(&plugin);
            if assessment.needs_asking() {
                crate::trust::ask(&assessment, id, port.as_ref()).await;
                assessment = crate::trust::plugin::assess(&plugin);
            }
            plugins.push((plugin, assessment.standing()));
        }
        let (_, project) = standings.remove(0);
        let wanted = (project, standings, plugins);
        let handle = self.handle(id)?;
        let config = &handle.settings.config;
        let now = (&config.standing, &config.roots, &config.plugins);
        if now == (&wanted.0, &wanted.1, &wanted.2) || !handle.status.is_idle() {
            return Ok(());
        }
        tracing::info!(session = %id, trusted = wanted.0.is_trusted(), "the workspace's standing changed; opening the session again");
        let servers = handle.editor_servers.clone();
        if let Some(old) = self.open_sessions().remove(id) {
            old.cancel();
            old.mcp.shutdown();
            old.jobs.end_all();
        }
        self.open(id, None, servers)?;
        self.release_mcp(id);
        Ok(())
    }
}
