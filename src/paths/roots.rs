//! The workspace's extra roots (ACP's `additionalDirectories`, `tandem run --add-dir`): each
//! is checked before a session opens with it (an existing folder, absolute, neither `/` nor the
//! home folder itself), so that a bad one is refused with a clear reason and nothing opens.

use std::path::{Path, PathBuf};

/// `dirs` checked, in order and without repeats (nor the project folder itself); the first bad
/// one's reason otherwise.
pub fn checked(cwd: &Path, dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let project = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned());
    let mut roots: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        let real = check(dir)?;
        if real != project && !roots.iter().any(|r| same(r, &real)) {
            roots.push(dir.clone());
        }
    }
    Ok(roots)
}

/// The real folder `dir` names, or why it cannot be a workspace root.
fn check(dir: &Path) -> Result<PathBuf, String> {
    let shown = dir.display();
    if !dir.is_absolute() {
        return Err(format!(
            "the workspace folder `{shown}` is not an absolute path"
        ));
    }
    let real = match std::fs::canonicalize(dir) {
        Ok(real) => real,
        Err(_) => return Err(format!("the workspace folder `{shown}` does not exist")),
    };
    if !real.is_dir() {
        return Err(format!(
            "the workspace folder `{shown}` is a file, not a folder"
        ));
    }
    if real.parent().is_none() {
        return Err(format!(
            "the workspace folder `{shown}` is the file system's root: name a project folder"
        ));
    }
    let home = super::home_dir().and_then(|h| std::fs::canonicalize(h).ok());
    if home.is_some_and(|home| home == real) {
        return Err(format!(
            "the workspace folder `{shown}` is your home folder: name a project folder inside it"
        ));
    }
    Ok(real)
}

fn same(dir: &Path, real: &Path) -> bool {
    std::fs::canonicalize(dir).is_ok_and(|d| d == real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_pass_and_the_rest_are_refused_with_a_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(tmp.path().join("f"), "").unwrap();
        let cwd = tmp.path().join("a");
        assert_eq!(
            checked(&cwd, &[b.clone(), a.clone(), b.clone()]).unwrap(),
            std::slice::from_ref(&b),
            "the project and repeats are left out"
        );
        let refused = |dir: &Path| checked(&cwd, &[b.clone(), dir.to_owned()]).unwrap_err();
        assert!(refused(&tmp.path().join("missing")).contains("does not exist"));
        assert!(refused(&tmp.path().join("f")).contains("is a file"));
        assert!(refused(Path::new("/")).contains("root"));
        assert!(refused(Path::new("rel")).contains("absolute"));
        if let Some(home) = crate::paths::home_dir().filter(|h| h.is_dir()) {
            assert!(refused(&home).contains("home folder"));
        }
    }
}
