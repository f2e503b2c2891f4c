//! The project's protected root entries (`tandem.json`, `.tandem/`, `.envrc`, `mise.toml` …)
//! around a step's calls: one a command created without the person's say-so (through an
//! interpreter the rules cannot read, where the sandbox's read-only mounts cannot reach a path
//! that did not exist yet) is set aside under a name nothing obeys, and the person is told.
//! Nothing is deleted: the person may have made it by hand meanwhile.

use std::path::{Path, PathBuf};

use crate::permission::protected::AT_PROJECT_ROOT;

/// Which protected root entries existed before a step's calls.
pub(in crate::session) struct RootWatch {
    root: PathBuf,
    absent: Vec<&'static str>,
}

impl RootWatch {
    pub fn take(root: &Path) -> Self {
        let absent = AT_PROJECT_ROOT
            .iter()
            .copied()
            // `.git/hooks` and `.git/config` come and go with the repository itself, and an
            // editor makes its own folder when it opens the project, turn or not.
            .filter(|entry| !entry.starts_with(".git/"))
            .filter(|entry| !matches!(*entry, ".vscode" | ".zed" | ".idea" | ".devcontainer"))
            .filter(|entry| std::fs::symlink_metadata(root.join(entry)).is_err())
            .collect();
        Self {
            root: root.to_path_buf(),
            absent,
        }
    }

    /// Sets aside each entry that appeared since `take` (renamed to `<entry>.set-aside-by-tandem`)
    /// unless the person approved writing it (or something inside it) this turn; returns the
    /// entries set aside.
    pub fn set_aside_new(&self, approved: &[String]) -> Vec<String> {
        let mut moved = Vec::new();
        for entry in &self.absent {
            let path = self.root.join(entry);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let allowed = approved
                .iter()
                .any(|a| a == entry || a.starts_with(&format!("{entry}/")));
            if allowed {
                continue;
            }
            let aside = (0..100)
                .map(|n| match n {
                    0 => format!("{}.{SUFFIX}", path.display()),
                    n => format!("{}.{SUFFIX}.{n}", path.display()),
                })
                .map(PathBuf::from)
                .find(|p| std::fs::symlink_metadata(p).is_err());
            match aside.map(|to| std::fs::rename(&path, to)) {
                Some(Ok(())) => moved.push((*entry).to_owned()),
                Some(Err(error)) => {
                    tracing::warn!(%error, path = %path.display(), "cannot set aside")
                }
                None => tracing::warn!(path = %path.display(), "no free name to set it aside"),
            }
        }
        moved
    }
}

/// What a set-aside entry's name ends with.
pub(in crate::session) const SUFFIX: &str = "set-aside-by-tandem";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_appeared_unapproved_goes_and_what_was_there_or_approved_stays() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("tandem.json"), "{}").unwrap();
        let watch = RootWatch::take(root);
        std::fs::create_dir_all(root.join(".tandem/agent")).unwrap();
        std::fs::write(root.join(".tandem/agent/x.md"), "evil").unwrap();
        std::fs::write(root.join(".envrc"), "evil").unwrap();
        std::fs::write(root.join("opencode.json"), "{}").unwrap();
        let moved = watch.set_aside_new(&["opencode.json".to_owned()]);
        assert_eq!(moved, [".tandem", ".envrc"]);
        assert!(!root.join(".tandem").exists() && !root.join(".envrc").exists());
        assert!(root.join(".tandem.set-aside-by-tandem/agent/x.md").exists());
        assert!(root.join(".envrc.set-aside-by-tandem").exists());
        assert!(root.join("tandem.json").exists() && root.join("opencode.json").exists());
    }
}
