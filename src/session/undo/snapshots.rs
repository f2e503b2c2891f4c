//! A turn's use of snapshots: the workspace (the project and its other roots) recorded before
//! a step's calls that may change files, the step's patch after them, and the turn's net change. A failure is logged, never fatal.

use std::sync::{Arc, Mutex};

use crate::message::DiffSummary;
use crate::snapshot::{Changed, WorkspaceSnapshots, WorkspaceStaged};
use crate::tool::Registry;

/// What a step changed: the files and the snapshot holding them as they were before.
pub(in crate::session) struct StepPatch {
    pub before: String,
    pub changed: Changed,
}

/// The files of a workspace being staged in a task of their own, begun as a turn starts so
/// that the staging runs beside the turn's other preparations. The store's index stays held
/// until it is used or dropped: drop it as soon as it will not be used at once.
pub(in crate::session) struct EarlyStage(
    tokio::task::JoinHandle<Result<WorkspaceStaged, crate::snapshot::SnapshotError>>,
);

impl EarlyStage {
    /// Begins staging `state`'s workspace, when its snapshots are on.
    pub fn begin(
        state: &crate::session::core::state::SessionState,
        snapshots: &crate::snapshot::Snapshots,
    ) -> Option<Self> {
        let project = workspace_of(state, snapshots)?;
        Some(Self(tokio::spawn(async move { project.stage().await })))
    }
}

/// The snapshots a turn of `state`'s session takes: its workspace's, unless the config turns
/// them off.
pub(in crate::session) fn workspace_of(
    state: &crate::session::core::state::SessionState,
    snapshots: &crate::snapshot::Snapshots,
) -> Option<Arc<WorkspaceSnapshots>> {
    let on = state.config.config.snapshot != Some(false);
    on.then(|| snapshots.workspace(&state.info.cwd, &state.info.extra_roots))
        .flatten()
}

/// One turn's snapshots.
pub(in crate::session) struct TurnSnapshots {
    project: Option<Arc<WorkspaceSnapshots>>,
    /// The first snapshot this turn took, and the latest.
    span: Mutex<Option<(String, String)>>,
    /// Why a snapshot could not be recorded, the first time it happened this turn.
    failure: Mutex<Option<String>>,
}

impl TurnSnapshots {
    pub fn new(project: Option<Arc<WorkspaceSnapshots>>) -> Self {
        Self {
            project,
            span: Mutex::default(),
            failure: Mutex::default(),
        }
    }

    /// Whether a step calling `tools` needs a snapshot first: any call but a read-only one.
    pub fn wanted<'a>(
        &self,
        registry: &Registry,
        mut tools: impl Iterator<Item = &'a str>,
    ) -> bool {
        self.project.is_some() && tools.any(|name| registry.may_change_files(name))
    }

    /// Records the project before a step's calls run.
    pub async fn before_calls(&self) -> Option<String> {
        let staged = self.stage_before(None).await;
        self.before_staged(staged).await
    }

    /// The first half of `before_calls`: the files staged as they are now (or when `early`
    /// began staging them). What changes after that is not in the snapshot, even before
    /// `before_staged` writes its tree.
    pub async fn stage_before(&self, early: Option<EarlyStage>) -> Option<WorkspaceStaged> {
        let project = self.project.as_ref()?;
        let staged = match early {
            Some(EarlyStage(task)) => match task.await {
                Ok(staged) => staged,
                Err(_) => project.stage().await,
            },
            None => project.stage().await,
        };
        staged.map_err(|error| self.failed(error)).ok()
    }

    /// The second half of `before_calls`: the staged files' tree, recorded as the snapshot
    /// before the calls.
    pub async fn before_staged(&self, staged: Option<WorkspaceStaged>) -> Option<String> {
        let tree = staged?.tree().await.map_err(|e| self.failed(e)).ok()?;
        let mut span = self.span.lock().unwrap_or_else(|p| p.into_inner());
        match span.as_mut() {
            Some((_, latest)) => *latest = tree.clone(),
            None => *span = Some((tree.clone(), tree.clone())),
        }
        Some(tree)
    }

    /// Records the project after the calls and compares it with `before`; None when nothing
    /// changed (or snapshots failed).
    pub async fn after_calls(&self, before: &str) -> Option<StepPatch> {
        let after = self.track().await?;
        if let Some((_, latest)) = self.span.lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            *latest = after.clone();
        }
        if after == before {
            return None;
        }
        let project = self.project.as_ref()?;
        match project.changed(before, &after).await {
            Ok(changed) if !changed.paths.is_empty() => Some(StepPatch {
                before: before.to_owned(),
                changed,
            }),
            Ok(_) => None,
            Err(error) => {
                tracing::warn!(%error, "cannot compare snapshots");
                None
            }
        }
    }

    /// Why a snapshot failed this turn, if one did.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// What the whole turn changed, from its first snapshot to its last.
    pub async fn turn_summary(&self) -> Option<DiffSummary> {
        let (first, last) = self
            .span
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()?;
        if first == last {
            return None;
        }
        let changed = self.project.as_ref()?.changed(&first, &last).await.ok()?;
        (changed.summary.files > 0).then_some(changed.summary)
    }

    async fn track(&self) -> Option<String> {
        let tracked = self.project.as_ref()?.track().await;
        tracked.map_err(|error| self.failed(error)).ok()
    }

    /// A snapshot could not be recorded: logged, and kept to tell the person.
    fn failed(&self, error: crate::snapshot::SnapshotError) {
        tracing::warn!(%error, "cannot record a snapshot of the project");
        let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.get_or_insert_with(|| error.to_string());
    }
}
