//! Puts chosen files back as a snapshot tree holds them (or removes them where it holds none),
//! writing only inside the project root: every path is checked before anything is written.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use super::SnapshotError;
use super::diff::read_blobs;
use super::git::Git;

/// What a restore did, per file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    /// Files written back with the snapshot's contents.
    pub written: Vec<String>,
    /// Files removed because the snapshot did not have them.
    pub removed: Vec<String>,
}

/// One file as a tree holds it.
struct TreeFile {
    mode: String,
    object: String,
}

/// Restores `paths` (relative to the work tree) to their state in `tree`.
pub(super) async fn restore(
    git: &Git,
    tree: &str,
    paths: &[String],
) -> Result<Restored, SnapshotError> {
    let root = git.work_tree.canonicalize().map_err(SnapshotError::Io)?;
    // Every path is checked before the first write: one escape refuses the whole restore.
    let targets: Vec<(String, PathBuf)> = paths
        .iter()
        .map(|path| Ok((path.clone(), inside(&root, path)?)))
        .collect::<Result<_, SnapshotError>>()?;
    let listed = list(git, tree, paths).await?;
    let objects: Vec<&str> = listed.values().map(|f| f.object.as_str()).collect();
    let blobs = read_blobs(git, &objects).await?;
    let mut restored = Restored::default();
    for (path, target) in targets {
        match listed.get(&path) {
            Some(file) => {
                let bytes = blobs
                    .get(&file.object)
                    .ok_or_else(|| SnapshotError::Missing {
                        object: file.object.clone(),
                    })?;
                write(&target, &file.mode, bytes).map_err(SnapshotError::Io)?;
                restored.written.push(path);
            }
            None => {
                if target.symlink_metadata().is_ok() {
                    std::fs::remove_file(&target).map_err(SnapshotError::Io)?;
                    remove_empty_parents(&root, &target);
                    restored.removed.push(path);
                }
            }
        }
    }
    Ok(restored)
}

/// Refuses (with the first offender) if any of `paths` would land outside `work_tree`.
pub(super) fn check_inside(work_tree: &Path, paths: &[String]) -> Result<(), SnapshotError> {
    let root = work_tree.canonicalize().map_err(SnapshotError::Io)?;
    paths
        .iter()
        .try_for_each(|path| inside(&root, path).map(drop))
}

/// The absolute place of `path` under `root`, or an error if it could land anywhere else: an
/// absolute path, `..`, or a directory on the way that is a symlink leading out.
fn inside(root: &Path, path: &str) -> Result<PathBuf, SnapshotError> {
    let escape = || SnapshotError::Outside {
        path: path.to_owned(),
    };
    let relative = Path::new(path);
    if path.is_empty()
        || !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(escape());
    }
    let target = root.join(relative);
    // The deepest directory on the way that exists must resolve inside the root; the file
    // itself may be a symlink (it is replaced, never followed).
    let mut ancestor = target.parent().map(Path::to_path_buf);
    while let Some(dir) = ancestor {
        if dir.symlink_metadata().is_ok() {
            let real = dir.canonicalize().map_err(|_| escape())?;
            if !real.starts_with(root) {
                return Err(escape());
            }
            break;
        }
        ancestor = dir.parent().map(Path::to_path_buf);
    }
    Ok(target)
}

/// Writes `bytes` at `target` as a file of git `mode`. A symlink or directory in its place is
/// removed first, and the file is opened with `O_NOFOLLOW`: nothing is ever written through a
/// link.
fn write(target: &Path, mode: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    match target.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::remove_file(target)?,
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(target)?,
        _ => {}
    }
    if mode == "120000" {
        use std::os::unix::ffi::OsStrExt;
        return std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(bytes), target);
    }
    let permissions = if mode == "100755" { 0o755 } else { 0o644 };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(permissions)
        .custom_flags(crate::sys::NO_FOLLOW)
        .open(target)?;
    file.write_all(bytes)?;
    let executable = permissions & 0o100 != 0;
    let current = file.metadata()?.permissions();
    if (current.mode() & 0o100 != 0) != executable {
        file.set_permissions(std::fs::Permissions::from_mode(permissions))?;
    }
    Ok(())
}

/// Removes the directories above `file` that the removal left empty, up to `root`.
fn remove_empty_parents(root: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(current) = dir {
        if current == root || !current.starts_with(root) || std::fs::remove_dir(current).is_err() {
            break;
        }
        dir = current.parent();
    }
}

/// Which of `paths` `tree` holds, with their modes and objects.
async fn list(
    git: &Git,
    tree: &str,
    paths: &[String],
) -> Result<HashMap<String, TreeFile>, SnapshotError> {
    let mut found = HashMap::new();
    for chunk in paths.chunks(500) {
        let mut args = vec!["ls-tree", "-r", "-z", "--full-tree", tree, "--"];
        args.extend(chunk.iter().map(String::as_str));
        let out = git.run(&args, None).await?;
        for record in String::from_utf8_lossy(&out).split('\0') {
            let Some((meta, path)) = record.split_once('\t') else {
                continue;
            };
            let mut words = meta.split(' ');
            let (Some(mode), Some("blob"), Some(object)) =
                (words.next(), words.next(), words.next())
            else {
                continue;
            };
            found.insert(
                path.to_owned(),
                TreeFile {
                    mode: mode.to_owned(),
                    object: object.to_owned(),
                },
            );
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_root_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        let root = root.canonicalize().unwrap();
        assert!(inside(&root, "src/a.rs").is_ok());
        assert!(inside(&root, "new/dir/a.rs").is_ok());
        for bad in [
            "../x",
            "/etc/passwd",
            "src/../../x",
            "link/a",
            "link/deeper/a",
            "",
        ] {
            assert!(
                matches!(inside(&root, bad), Err(SnapshotError::Outside { .. })),
                "{bad}"
            );
        }
    }
}
