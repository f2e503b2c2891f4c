//! Where a path really leads: symlinks followed one component at a time (dangling ones too,
//! a bounded number of hops), `..` applied to what is really there, and globs expanded the way
//! bash expands them, so a check judges the very file a tool or command will touch.

use std::path::{Path, PathBuf};

pub use crate::paths::real_path;

/// How many files a glob may expand to before Tandem stops listing them and asks.
const MAX_GLOB_MATCHES: usize = 1000;

/// The directory a real path lies in (itself when it is a directory), as an
/// `external_directory` pattern: `dir/*`.
pub fn directory_pattern(real: &Path) -> String {
    let dir = if real.is_dir() {
        real
    } else {
        real.parent().unwrap_or(real)
    };
    format!("{}/*", dir.display()).replace("//*", "/*")
}

fn has_glob(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// What bash expands the glob `pattern` to, relative to `base`: the matching paths (not yet
/// resolved), or the pattern itself when nothing matches. `None` when Tandem cannot list what
/// it would match: a component that could match `..`, or too many matches.
pub fn expand_glob(base: &Path, pattern: &str) -> Option<Vec<PathBuf>> {
    let mut current = vec![if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        base.to_owned()
    }];
    for component in pattern.split('/').filter(|c| !c.is_empty()) {
        if !has_glob(component) {
            for path in &mut current {
                path.push(component);
            }
            continue;
        }
        if component.starts_with(['.', '[']) {
            return None;
        }
        let matcher = globset::GlobBuilder::new(component)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .ok()?
            .compile_matcher();
        let mut next = Vec::new();
        for dir in &current {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                if !name.to_string_lossy().starts_with('.') && matcher.is_match(&name) {
                    next.push(dir.join(name));
                    if next.len() > MAX_GLOB_MATCHES {
                        return None;
                    }
                }
            }
        }
        if next.is_empty() {
            return Some(vec![base.join(pattern)]);
        }
        current = next;
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlinks_are_followed_even_when_dangling_and_dotdot_goes_up_from_the_real_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let project = root.join("project");
        let outside = root.join("outside");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        symlink(&outside, project.join("out")).unwrap();
        symlink(outside.join("missing/file"), project.join("dangling")).unwrap();
        symlink("../../outside/x", project.join("src/rel")).unwrap();
        symlink("loop", project.join("loop")).unwrap();
        let real = |p: &str| real_path(&project.join(p)).unwrap();
        assert_eq!(real("src/new.txt"), project.join("src/new.txt"));
        assert_eq!(real("out/a"), outside.join("a"));
        assert_eq!(
            real("out/../secret"),
            root.join("secret"),
            "`..` from the target"
        );
        assert_eq!(real("dangling"), outside.join("missing/file"));
        assert_eq!(real("src/rel"), outside.join("x"));
        assert_eq!(real("./src/./new.txt"), project.join("src/new.txt"));
        assert!(real_path(&project.join("loop")).is_err());
    }

    #[test]
    fn globs_expand_like_bash_or_give_up() {
        let dir = tempfile::tempdir().unwrap();
        // One level down, so that `..` is this test's own folder, not the busy system temp dir.
        let base = &dir.path().join("base");
        std::fs::create_dir(base).unwrap();
        std::fs::write(base.join("a.rs"), "").unwrap();
        std::fs::write(base.join("b.rs"), "").unwrap();
        std::fs::write(base.join(".hidden.rs"), "").unwrap();
        let mut found = expand_glob(base, "*.rs").unwrap();
        found.sort();
        assert_eq!(found, [base.join("a.rs"), base.join("b.rs")]);
        assert_eq!(expand_glob(base, "*.md").unwrap(), [base.join("*.md")]);
        assert_eq!(expand_glob(base, ".*"), None, "`.*` can match `..`");
        assert!(
            expand_glob(base, "../*")
                .unwrap()
                .iter()
                .all(|p| p.starts_with(base.join("..")))
        );
    }
}
