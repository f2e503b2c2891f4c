//! Snapshots of a whole workspace: the project and its other roots, each in its own store,
//! taken and restored together. A workspace snapshot's id is the project's tree id alone when
//! there are no other roots (as every snapshot was before), else that id and one line per other
//! root, `<tree>\t<root>`. Files of the project are named relative to it, as before; files of
//! another root by their absolute path.

use std::path::Path;
use std::sync::Arc;

use super::{Changed, FileChange, ProjectSnapshots, Restored, SnapshotError, Staged};

/// The snapshots of a project and its other roots.
pub struct WorkspaceSnapshots {
    project: Arc<ProjectSnapshots>,
    others: Vec<Arc<ProjectSnapshots>>,
}

/// Every root's files staged (see `Staged`).
pub struct WorkspaceStaged {
    project: Staged,
    others: Vec<(Staged, std::path::PathBuf)>,
}

impl WorkspaceStaged {
    /// Writes each root's tree; the workspace snapshot's id.
    pub async fn tree(self) -> Result<String, SnapshotError> {
        let mut id = self.project.tree().await?;
        for (other, root) in self.others {
            let tree = other.tree().await?;
            id.push_str(&format!("\n{tree}\t{}", root.display()));
        }
        Ok(id)
    }
}

/// One root's part of a workspace snapshot id.
struct Part<'a> {
    tree: &'a str,
    /// None for the project.
    root: Option<&'a Path>,
}

fn parts(id: &str) -> Vec<Part<'_>> {
    id.lines()
        .enumerate()
        .filter_map(|(at, line)| match (at, line.split_once('\t')) {
            (0, _) => Some(Part {
                tree: line,
                root: None,
            }),
            (_, Some((tree, root))) => Some(Part {
                tree,
                root: Some(Path::new(root)),
            }),
            _ => None,
        })
        .collect()
}

impl WorkspaceSnapshots {
    pub fn new(project: Arc<ProjectSnapshots>, mut others: Vec<Arc<ProjectSnapshots>>) -> Self {
        // One store once: its index is held while a snapshot is staged.
        let mut seen = vec![project.clone()];
        others.retain(|other| {
            let new = !seen.iter().any(|s| Arc::ptr_eq(s, other));
            seen.push(other.clone());
            new
        });
        Self { project, others }
    }

    pub fn work_tree(&self) -> &Path {
        self.project.work_tree()
    }

    /// The store holding `root`'s snapshots (None for a root no longer in the workspace).
    fn store(&self, root: Option<&Path>) -> Option<&ProjectSnapshots> {
        match root {
            None => Some(&self.project),
            Some(root) => self
                .others
                .iter()
                .find(|o| o.work_tree() == root)
                .map(AsRef::as_ref),
        }
    }

    /// Records every root as it is now; the workspace snapshot's id.
    pub async fn track(&self) -> Result<String, SnapshotError> {
        self.stage().await?.tree().await
    }

    /// The first half of `track`: every root's files staged, their trees not yet written.
    /// Each root's index is held until its tree is written, so they are taken in one order
    /// (by path) whatever the workspace: two workspaces sharing roots never wait on each other.
    pub async fn stage(&self) -> Result<WorkspaceStaged, SnapshotError> {
        let mut roots: Vec<(bool, &ProjectSnapshots)> = std::iter::once((true, &*self.project))
            .chain(self.others.iter().map(|o| (false, &**o)))
            .collect();
        roots.sort_by(|a, b| a.1.work_tree().cmp(b.1.work_tree()));
        let (mut project, mut others) = (None, Vec::new());
        for (is_project, root) in roots {
            let staged = root.stage().await?;
            match is_project {
                true => project = Some(staged),
                false => others.push((staged, root.work_tree().to_owned())),
            }
        }
        // The other roots' trees follow the project's in the workspace's own order.
        others.sort_by_key(|(_, root)| self.others.iter().position(|o| o.work_tree() == root));
        let project = project.expect("the project is among the roots");
        Ok(WorkspaceStaged { project, others })
    }

    /// The trees of `from` and `to` for each root both hold that is still in the workspace.
    fn pairs<'a>(&'a self, from: &'a str, to: &'a str) -> Vec<(&'a ProjectSnapshots, Pair<'a>)> {
        let (from, to) = (parts(from), parts(to));
        from.iter()
            .filter_map(|a| {
                let b = to.iter().find(|b| b.root == a.root)?;
                let store = self.store(a.root)?;
                Some((
                    store,
                    Pair {
                        from: a.tree,
                        to: b.tree,
                        root: a.root,
                    },
                ))
            })
            .collect()
    }

    /// The files that changed from `from` to `to`, and the totals.
    pub async fn changed(&self, from: &str, to: &str) -> Result<Changed, SnapshotError> {
        let mut all = Changed::default();
        for (store, pair) in self.pairs(from, to) {
            let changed = store.changed(pair.from, pair.to).await?;
            add(&mut all, changed, pair.root);
        }
        Ok(all)
    }

    /// Like `changed`, only among `paths`.
    pub async fn changed_in(
        &self,
        from: &str,
        to: &str,
        paths: &[String],
    ) -> Result<Changed, SnapshotError> {
        let mut all = Changed::default();
        for (store, pair) in self.pairs(from, to) {
            let mine = own(paths, pair.root);
            if mine.is_empty() {
                continue;
            }
            let changed = store.changed_in(pair.from, pair.to, &mine).await?;
            add(&mut all, changed, pair.root);
        }
        Ok(all)
    }

    /// Every changed file from `from` to `to`, with its contents on both sides.
    pub async fn changes(&self, from: &str, to: &str) -> Result<Vec<FileChange>, SnapshotError> {
        let mut all = Vec::new();
        for (store, pair) in self.pairs(from, to) {
            for mut change in store.changes(pair.from, pair.to).await? {
                change.path = named(&change.path, pair.root);
                all.push(change);
            }
        }
        Ok(all)
    }

    /// Puts `paths` back as the snapshot `id` holds them (see `ProjectSnapshots::restore`).
    pub async fn restore(&self, id: &str, paths: &[String]) -> Result<Restored, SnapshotError> {
        self.check_inside(paths)?;
        let mut all = Restored::default();
        for part in parts(id) {
            let Some(store) = self.store(part.root) else {
                continue;
            };
            let mine = own(paths, part.root);
            if mine.is_empty() {
                continue;
            }
            let restored = store.restore(part.tree, &mine).await?;
            all.written
                .extend(restored.written.iter().map(|p| named(p, part.root)));
            all.removed
                .extend(restored.removed.iter().map(|p| named(p, part.root)));
        }
        Ok(all)
    }

    /// Refuses (with the first offender) if any of `paths` would land outside its root.
    pub fn check_inside(&self, paths: &[String]) -> Result<(), SnapshotError> {
        let (inside, outside): (Vec<&String>, Vec<&String>) =
            paths.iter().partition(|p| !Path::new(p).is_absolute());
        let inside: Vec<String> = inside.into_iter().cloned().collect();
        self.project.check_inside(&inside)?;
        for path in outside {
            let owner = self
                .others
                .iter()
                .find(|o| Path::new(path).starts_with(o.work_tree()));
            match owner {
                Some(owner) => {
                    let relative = own(std::slice::from_ref(path), Some(owner.work_tree()));
                    owner.check_inside(&relative)?;
                }
                None => return Err(SnapshotError::Outside { path: path.clone() }),
            }
        }
        Ok(())
    }
}

struct Pair<'a> {
    from: &'a str,
    to: &'a str,
    root: Option<&'a Path>,
}

/// `path` of `root` as the workspace names it: relative for the project, absolute otherwise.
fn named(path: &str, root: Option<&Path>) -> String {
    match root {
        None => path.to_owned(),
        Some(root) => root.join(path).display().to_string(),
    }
}

/// Those of `paths` that belong to `root`, relative to it.
fn own(paths: &[String], root: Option<&Path>) -> Vec<String> {
    paths
        .iter()
        .filter_map(|path| match root {
            None => (!Path::new(path).is_absolute()).then(|| path.clone()),
            Some(root) => Path::new(path)
                .strip_prefix(root)
                .ok()
                .map(|rel| rel.display().to_string()),
        })
        .collect()
}

fn add(all: &mut Changed, changed: Changed, root: Option<&Path>) {
    all.summary.files += changed.summary.files;
    all.summary.additions += changed.summary.additions;
    all.summary.deletions += changed.summary.deletions;
    all.paths
        .extend(changed.paths.iter().map(|p| named(p, root)));
}

/// The trees of workspace snapshot `id` (taken by a session in `owner`) that `dir`'s store
/// holds: the first when `dir` is the session's project, and the one of `dir` as another root.
pub fn trees_of(id: &str, owner: &Path, dir: &Path) -> Vec<String> {
    parts(id)
        .into_iter()
        .filter(|part| part.root.unwrap_or(owner) == dir)
        .map(|part| part.tree.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_store_keeps_the_trees_of_its_own_root() {
        let (project, other) = (Path::new("/w/app"), Path::new("/w/lib"));
        let id = "aaa\nbbb\t/w/lib";
        assert_eq!(trees_of(id, project, project), ["aaa"]);
        assert_eq!(trees_of(id, project, other), ["bbb"]);
        // A session in `lib` itself: its first tree is lib's.
        assert_eq!(trees_of("ccc", other, other), ["ccc"]);
        assert!(trees_of("ccc", other, project).is_empty());
        assert_eq!(
            own(&["a.rs".into(), "/w/lib/b.rs".into()], Some(other)),
            ["b.rs"]
        );
        assert_eq!(own(&["a.rs".into(), "/w/lib/b.rs".into()], None), ["a.rs"]);
        assert_eq!(named("b.rs", Some(other)), "/w/lib/b.rs");
    }
}
