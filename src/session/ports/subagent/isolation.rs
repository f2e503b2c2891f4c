//! A subagent in a worktree of its own (`isolation: "worktree"`): made from the caller's state
//! before the child starts, and merged back when it ends under the caller's `edit` rules: a
//! clean merge is written whole and shown as the call's diffs (the turn's snapshots cover
//! it, so `/undo` takes it back); a conflict writes nothing and keeps the child's branch.

use std::path::PathBuf;

use crate::message::FileDiff;
use crate::permission::keys;
use crate::tool::{Need, PermissionCheck, SubagentCall, ToolContext, ToolError};
use crate::worktree::{Merged, Worktree};

use super::Delegation;
use crate::agent::AgentInfo;
use crate::id::SessionId;
use crate::session::core::children::ChildSessions;

impl Delegation {
    /// The child session `call` runs in, and the worktree it works in when it asks for one
    /// (made first; removed again if the child cannot be had).
    pub(super) async fn child_in_place(
        &self,
        children: &dyn ChildSessions,
        call: &SubagentCall,
        target: &AgentInfo,
    ) -> Result<(SessionId, Option<Worktree>), ToolError> {
        let isolated =
            call.worktree || target.isolation == Some(crate::config::Isolation::Worktree);
        let mut worktree = self.worktree_for(isolated).await?;
        let cwd = worktree
            .as_ref()
            .map_or_else(|| self.cwd.clone(), Worktree::cwd);
        let child = match self.child_for(children, (call, &cwd), target) {
            Ok(child) => child,
            Err(error) => {
                if let Some(worktree) = &worktree {
                    let _ = crate::worktree::remove(worktree, false).await;
                }
                return Err(error);
            }
        };
        if let Some(worktree) = &mut worktree
            && let Err(error) = worktree.attach(child.as_str())
        {
            tracing::warn!(%error, "a worktree's child could not be recorded");
        }
        Ok((child, worktree))
    }

    /// The worktree a child works in, when it is `isolated`.
    async fn worktree_for(&self, isolated: bool) -> Result<Option<Worktree>, ToolError> {
        if !isolated {
            return Ok(None);
        }
        let name = crate::id::ulid().to_lowercase();
        crate::worktree::create(&self.cwd, &name)
            .await
            .map(Some)
            .map_err(|error| ToolError::failed(format!("The subagent was not started: {error}.")))
    }
}

/// Merges the ended child's worktree into the caller's files and removes it: what the caller's
/// model is told, and the diffs the editor shows.
pub(super) async fn merge_back(ctx: &ToolContext, worktree: &Worktree) -> (String, Vec<FileDiff>) {
    let kept = |why: String| {
        format!(
            "\n\n(The subagent worked in its own worktree. {why} Nothing was merged into your \
             files; its work is on branch {}: merge it with `git merge {}`, or ask the \
             person to.)",
            worktree.branch, worktree.branch
        )
    };
    let (note, diffs, keep_branch) = match crate::worktree::merge_back(worktree).await {
        Ok(Merged::Nothing) => (
            "\n\n(The subagent worked in its own worktree and changed no file.)".to_owned(),
            Vec::new(),
            false,
        ),
        Ok(Merged::Conflict(files)) => (
            kept(format!(
                "Its changes conflict with yours in: {}.",
                files.join(", ")
            )),
            Vec::new(),
            true,
        ),
        Ok(Merged::Clean(plan)) => {
            let allowed = ctx.ask(merge_check(ctx, &plan.changed)).await;
            match allowed {
                Err(refused) => (
                    kept(format!("Merging it was refused: {refused}")),
                    Vec::new(),
                    true,
                ),
                Ok(()) => match plan.apply().await {
                    Ok(changes) => {
                        let names: Vec<String> =
                            changes.iter().map(|(p, _, _)| ctx.relative(p)).collect();
                        let diffs = changes
                            .into_iter()
                            .map(|(path, old_text, new)| FileDiff {
                                path,
                                old_text,
                                new_text: new.unwrap_or_default(),
                            })
                            .collect();
                        let note = format!(
                            "\n\n(The subagent worked in its own worktree; its changes were \
                             merged into your files: {}.)",
                            names.join(", ")
                        );
                        (note, diffs, false)
                    }
                    Err(error) => (
                        kept(format!("Its merge failed: {error}.")),
                        Vec::new(),
                        true,
                    ),
                },
            }
        }
        Err(error) => (
            kept(format!("Its merge failed: {error}.")),
            Vec::new(),
            true,
        ),
    };
    if let Err(error) = crate::worktree::remove(worktree, keep_branch).await {
        tracing::warn!(%error, "a subagent's worktree could not be removed");
    }
    (note, diffs)
}

/// The caller's `edit` question for every file the merge writes.
fn merge_check(ctx: &ToolContext, changed: &[PathBuf]) -> PermissionCheck {
    let names: Vec<String> = changed.iter().map(|p| ctx.relative(p)).collect();
    PermissionCheck {
        needs: changed
            .iter()
            .map(|path| Need::new(keys::EDIT, ctx.rule_names(&path.to_string_lossy(), path)))
            .collect(),
        title: format!("Merge the subagent's changes: {}", names.join(", ")),
        locations: changed
            .iter()
            .map(|p| crate::message::Location::file(p.clone()))
            .collect(),
        diffs: Vec::new(),
    }
}
