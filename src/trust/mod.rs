//! Workspace trust: a folder's own files start nothing and widen nothing until the person
//! trusts the folder as it is. What it brings is listed (inventory), the person is asked once,
//! and the answer is kept per folder under a fingerprint of that content (answers).

pub mod answers;
pub mod cli;
mod inventory;
pub mod plugin;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde_json::json;

pub use inventory::{Inventory, PROJECT_BIN_DIRS};

use crate::config::{ConfigError, LoadedConfig, Standing};
use crate::id::SessionId;
use crate::message::ToolKind;
use crate::tool::{ClientPort, PermissionDecision, PermissionRequest};

/// The permission a trust question is asked under (never judged by the config's rules).
pub const WORKSPACE_TRUST: &str = "workspace_trust";

/// A folder as it is now: what it brings, its fingerprint, and the person's answer for
/// exactly this content, if any.
#[derive(Debug, Clone)]
pub struct Assessment {
    /// The folder judged (a workspace folder, or a plugin's), as a real path: what the
    /// answer is kept under.
    pub folder: PathBuf,
    pub subject: Subject,
    pub inventory: Inventory,
    pub fingerprint: String,
    /// `Some(true)`: trusted as it is; `Some(false)`: refused; `None`: not asked yet (or it
    /// changed since the answer).
    pub answer: Option<bool>,
}

impl Assessment {
    /// Whether the person still has to be asked before anything of the folder may run.
    pub fn needs_asking(&self) -> bool {
        self.answer.is_none() && !self.inventory.is_empty()
    }

    /// The standing a session's config loads under: trusted when the person said so, or when
    /// the folder brings nothing.
    pub fn standing(&self) -> Standing {
        if self.answer == Some(true) || self.inventory.is_empty() {
            Standing::Trusted {
                programs: self.inventory.files.clone(),
            }
        } else {
            Standing::Untrusted
        }
    }
}

/// What is judged: a folder of the workspace, or a Claude Code plugin the person installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Folder,
    Plugin(String),
}

/// Answers given in this process, by (folder, fingerprint): "for this session" answers live
/// only here.
fn said() -> &'static Mutex<HashMap<(PathBuf, String), bool>> {
    static SAID: OnceLock<Mutex<HashMap<(PathBuf, String), bool>>> = OnceLock::new();
    SAID.get_or_init(Default::default)
}

/// The folder a session in `cwd` is judged as (its real path).
pub fn folder_of(cwd: &Path) -> PathBuf {
    std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned())
}

/// What `cwd` brings now and what the person said of exactly that.
pub fn assess(cwd: &Path) -> Assessment {
    assess_as(folder_of(cwd), Inventory::of(cwd), Subject::Folder)
}

/// `folder` bringing `inventory`, and what the person said of exactly that.
fn assess_as(folder: PathBuf, inventory: Inventory, subject: Subject) -> Assessment {
    let fingerprint = inventory.fingerprint();
    let key = (folder.clone(), fingerprint.clone());
    let spoken = said()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .copied();
    let answer = spoken.or_else(|| {
        answers::stored(&folder)
            .filter(|a| a.fingerprint == fingerprint)
            .map(|a| a.trusted)
    });
    Assessment {
        folder,
        subject,
        inventory,
        fingerprint,
        answer,
    }
}

/// The config for a session in `cwd`, under the folder's standing now.
pub fn load(cwd: &Path) -> Result<LoadedConfig, ConfigError> {
    load_workspace(cwd, &[])
}

/// The config for a session in `cwd` with the workspace's other `roots`, each folder under its
/// own standing now.
pub fn load_workspace(cwd: &Path, roots: &[PathBuf]) -> Result<LoadedConfig, ConfigError> {
    let (standing, roots) = standings(cwd, roots);
    let mut loaded = crate::config::load_workspace(cwd, standing, roots)?;
    loaded.plugins = plugin::standings(&loaded.folder_paths(cwd));
    Ok(loaded)
}

/// The standing of `cwd` and of each other root of its workspace now.
pub fn standings(cwd: &Path, roots: &[PathBuf]) -> (Standing, Vec<(PathBuf, Standing)>) {
    let others = roots
        .iter()
        .map(|root| (root.clone(), assess(root).standing()))
        .collect();
    (assess(cwd).standing(), others)
}

/// Records the person's answer about `assessment`'s folder as it is: for this process, and in
/// the data dir when `lasting`.
pub fn record(assessment: &Assessment, trusted: bool, lasting: bool) {
    let key = (assessment.folder.clone(), assessment.fingerprint.clone());
    said()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, trusted);
    if lasting {
        let answer = answers::Answer {
            fingerprint: assessment.fingerprint.clone(),
            trusted,
            at: crate::id::now_ms(),
        };
        if let Err(error) = answers::store(&assessment.folder, answer) {
            tracing::warn!(%error, "cannot keep the answer about this folder");
        }
    }
}

/// The question put to the person, naming each thing the folder brings and where it is from.
pub fn question(assessment: &Assessment, session: &SessionId) -> PermissionRequest {
    let lines = assessment.inventory.lines();
    let changed = answers::stored(&assessment.folder).is_some();
    let opening = match (&assessment.subject, changed) {
        (Subject::Folder, true) => {
            "This folder's files changed since you last answered. Trust it as it is now?".into()
        }
        (Subject::Folder, false) => "Trust this folder? Its files would have Tandem start \
             programs or allow more than you do. Until you trust it, none of this runs:"
            .to_owned(),
        (Subject::Plugin(name), true) => format!(
            "The Claude Code plugin `{name}` changed since you last answered. Trust it as it \
             is now?"
        ),
        (Subject::Plugin(name), false) => format!(
            "Trust the Claude Code plugin `{name}`? It would have Tandem start these programs; \
             until you trust it, none of them runs:"
        ),
    };
    PermissionRequest {
        session_id: session.clone(),
        call_id: format!("trust-{}", &assessment.fingerprint[..12]),
        tool: "trust".into(),
        kind: ToolKind::Execute,
        permission: WORKSPACE_TRUST.into(),
        title: format!(
            "{opening}\n{}\n{}: {}",
            lines
                .iter()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
            match assessment.subject {
                Subject::Folder => "Folder",
                Subject::Plugin(_) => "Plugin folder",
            },
            assessment.folder.display()
        ),
        input: json!({"folder": assessment.folder, "brings": lines}),
        locations: Vec::new(),
        diffs: Vec::new(),
    }
}

/// Asks the person about `assessment` through `port` and records the answer (lasting for the
/// "always" answers). A cancelled question is not an answer: the folder stays untrusted and
/// is asked about again. Returns whether it is trusted now.
pub async fn ask(assessment: &Assessment, session: &SessionId, port: &dyn ClientPort) -> bool {
    let decision = port.request_permission(question(assessment, session)).await;
    let trusted = decision.allows();
    match decision {
        PermissionDecision::Cancelled => {}
        PermissionDecision::AllowAlways | PermissionDecision::RejectAlways => {
            record(assessment, trusted, true)
        }
        _ => record(assessment, trusted, false),
    }
    trusted
}

/// What an untrusted session tells the person it left off, once.
pub fn left_off_note(config: &LoadedConfig) -> Option<String> {
    if config.standing.is_trusted() || config.left_off.is_empty() {
        return None;
    }
    let lines: Vec<String> = config
        .left_off
        .iter()
        .map(|b| format!("- {}", b.line()))
        .collect();
    Some(format!(
        "This folder is not trusted, so Tandem works with your own configuration and left off \
         what the folder's files would start or allow:\n{}\nTrust it from the question Tandem \
         asks, or with `tandem trust` in the folder.\n\n",
        lines.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_that_brings_nothing_is_trusted_without_asking() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tandem.json"), r#"{"model": "a/b"}"#).unwrap();
        let assessment = assess(dir.path());
        assert!(!assessment.needs_asking());
        assert!(assessment.standing().is_trusted());
    }

    #[test]
    fn the_fingerprint_covers_the_scripts_a_hook_runs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh .claude/stop.sh"}]}]}}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join(".claude/stop.sh"), "echo one").unwrap();
        let first = Inventory::of(dir.path());
        assert_eq!(
            first.lines(),
            ["hook Stop: sh .claude/stop.sh (.claude/settings.json)"]
        );
        std::fs::write(dir.path().join(".claude/stop.sh"), "curl evil").unwrap();
        assert_ne!(first.fingerprint(), Inventory::of(dir.path()).fingerprint());
    }
}
