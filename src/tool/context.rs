//! How a running tool reaches the world through its context: a path the model names resolved
//! against the project (asking `external_directory` for one outside it, so what was checked is
//! what is touched), its progress reported, and its permission checks put to the gate. The
//! context itself and the ports it holds are declared in `ports.rs`.

use std::path::{Path, PathBuf};

use super::ToolError;
use super::ports::{Need, PermissionCheck, ToolContext, ToolProgress};
use super::reach::{directory_pattern, real_path};
use crate::message::Location;
use crate::paths::{relative_to, resolve_in};
use crate::permission::Action;
use crate::permission::keys;

impl ToolContext {
    /// `path` made absolute against the session's cwd, with `.` and `..` resolved lexically.
    pub fn resolve(&self, path: &str) -> PathBuf {
        resolve_in(&self.cwd, path)
    }

    /// `path` relative to the project when inside it, else absolute: what titles show and
    /// rules match. A real path is relative to the project's real location.
    pub fn relative(&self, path: &Path) -> String {
        if let Ok(root) = std::fs::canonicalize(&self.cwd)
            && root != self.cwd
            && path.starts_with(&root)
        {
            return relative_to(&root, path);
        }
        relative_to(&self.cwd, path)
    }

    /// Whether `real` (a path with its links followed) lies in the workspace: beneath the
    /// project or one of its other roots (each judged by its own real path).
    pub fn in_workspace(&self, real: &Path) -> bool {
        std::iter::once(&self.cwd)
            .chain(self.extra_roots.iter())
            .any(|root| {
                let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                real.starts_with(root)
            })
    }

    /// Asks the permission gate; an error is the message the model reads.
    pub async fn ask(&self, check: PermissionCheck) -> Result<(), ToolError> {
        self.permissions.check(self, check).await
    }

    /// Says the call's checks are done and it runs now; call it after the last `ask`.
    pub fn started(&self) {
        (self.progress)(ToolProgress::Started);
    }

    /// Reports new output of the running call.
    pub fn output(&self, delta: String) {
        (self.progress)(ToolProgress::Output(delta));
    }

    /// The path a tool will really touch for `path`: made absolute, `.` and `..` applied,
    /// then every symlink on it followed (a dangling one too). When that lies outside the
    /// workspace (the project and its other roots), asks `external_directory` for its directory first. Tools read and write the
    /// returned path, so what was checked is what is touched.
    pub async fn path_in_reach(&self, path: &str) -> Result<PathBuf, ToolError> {
        let named = self.resolve(path);
        let real = real_path(&named).map_err(|e| ToolError::io("resolve", &named, e))?;
        if !self.in_workspace(&real) {
            let pattern = directory_pattern(&real);
            let dir = pattern.trim_end_matches("/*").to_owned();
            self.ask(PermissionCheck {
                needs: vec![
                    Need::new(keys::EXTERNAL_DIRECTORY, vec![pattern.clone()])
                        .always(vec![pattern]),
                ],
                title: format!("Access {dir} (outside the project)"),
                locations: vec![Location::file(real.clone())],
                diffs: vec![],
            })
            .await?;
        }
        Ok(real)
    }

    /// Which files a search may open or show: those the read rules allow without asking
    /// (judged by their path in the project, as `read` judges them).
    pub fn readable(&self) -> impl Fn(&Path) -> bool + Send + Sync + 'static {
        let gate = self.permissions.clone();
        let root = std::fs::canonicalize(&self.cwd).unwrap_or_else(|_| self.cwd.clone());
        move |path: &Path| gate.verdict(keys::READ, &relative_to(&root, path)) == Action::Allow
    }

    /// The names a file answers to under read and edit rules: the one the model gave and
    /// the one it really is (a symlink to `.env` is `.env` too).
    pub fn rule_names(&self, given: &str, real: &Path) -> Vec<String> {
        let mut names = vec![self.relative(real)];
        let named = self.relative(&self.resolve(given));
        if !names.contains(&named) {
            names.push(named);
        }
        names
    }
}
