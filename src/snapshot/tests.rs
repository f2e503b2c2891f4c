//! Snapshots against real git and real files: tracking, diffs, restores, pruning.

use std::process::Command;

use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    project: PathBuf,
    snapshots: Snapshots,
    data: PathBuf,
}

fn fixture(git_repo: bool) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join("src")).unwrap();
    if git_repo {
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .status()
            .unwrap();
        assert!(status.success());
    }
    std::fs::write(project.join("src/a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(project.join("b.txt"), "bee\n").unwrap();
    std::fs::write(project.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir_all(project.join("ignored")).unwrap();
    std::fs::write(project.join("ignored/big.bin"), "x").unwrap();
    let data = dir.path().join("data/snapshot");
    let project = project.canonicalize().unwrap();
    Fixture {
        snapshots: Snapshots::new(data.clone()),
        _dir: dir,
        project,
        data,
    }
}

#[tokio::test]
async fn tracks_diffs_and_restores_exactly_the_changed_files() {
    for git_repo in [true, false] {
        let f = fixture(git_repo);
        let snaps = f.snapshots.project(&f.project).unwrap();
        let before = snaps.track().await.unwrap();
        assert_eq!(before, snaps.track().await.unwrap(), "nothing changed");

        std::fs::write(f.project.join("src/a.txt"), "one\nTWO\nthree\n").unwrap();
        std::fs::remove_file(f.project.join("b.txt")).unwrap();
        std::fs::create_dir_all(f.project.join("new/deep")).unwrap();
        std::fs::write(f.project.join("new/deep/c.txt"), "sea\n").unwrap();
        std::fs::write(f.project.join("ignored/big.bin"), "changed").unwrap();
        let after = snaps.track().await.unwrap();

        let mut changes = snaps.changes(&before, &after).await.unwrap();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        let summary: Vec<_> = changes
            .iter()
            .map(|c| (c.path.as_str(), c.status, c.additions, c.deletions))
            .collect();
        assert_eq!(
            summary,
            [
                ("b.txt", ChangeStatus::Deleted, 0, 1),
                ("new/deep/c.txt", ChangeStatus::Added, 1, 0),
                ("src/a.txt", ChangeStatus::Modified, 2, 1),
            ],
            "git repo: {git_repo}"
        );
        assert_eq!(changes[0].before.as_deref(), Some("bee\n"));
        assert_eq!(changes[0].after, None);
        assert_eq!(changes[2].after.as_deref(), Some("one\nTWO\nthree\n"));
        let changed = snaps.changed(&before, &after).await.unwrap();
        assert_eq!(
            changed.summary,
            DiffSummary {
                files: 3,
                additions: 3,
                deletions: 2
            }
        );
        let paths = changed.paths;
        let restored = snaps.restore(&before, &paths).await.unwrap();
        assert_eq!(restored.removed, ["new/deep/c.txt"]);
        assert_eq!(
            std::fs::read_to_string(f.project.join("src/a.txt")).unwrap(),
            "one\ntwo\n"
        );
        assert_eq!(
            std::fs::read_to_string(f.project.join("b.txt")).unwrap(),
            "bee\n"
        );
        assert!(
            !f.project.join("new").exists(),
            "emptied directories go too"
        );
        // The ignored file was never part of a snapshot, so nothing touched it.
        assert_eq!(
            std::fs::read_to_string(f.project.join("ignored/big.bin")).unwrap(),
            "changed"
        );
        assert_eq!(snaps.track().await.unwrap(), before);

        // And forward again.
        snaps.restore(&after, &paths).await.unwrap();
        assert_eq!(
            std::fs::read_to_string(f.project.join("new/deep/c.txt")).unwrap(),
            "sea\n"
        );
        assert_eq!(snaps.track().await.unwrap(), after);

        if git_repo {
            // The person's repository saw none of it: no index, no objects written.
            assert!(!f.project.join(".git/index").exists());
            let count = Command::new("git")
                .args(["count-objects"])
                .current_dir(&f.project)
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&count.stdout).trim(),
                "0 objects, 0 kilobytes"
            );
        } else {
            assert!(!f.project.join(".git").exists());
        }
        assert!(f.data.read_dir().unwrap().count() == 1);
    }
}

#[tokio::test]
async fn a_symlink_leading_out_refuses_the_whole_restore() {
    let f = fixture(true);
    let snaps = f.snapshots.project(&f.project).unwrap();
    let before = snaps.track().await.unwrap();
    std::fs::write(f.project.join("b.txt"), "changed\n").unwrap();
    std::fs::write(f.project.join("src/a.txt"), "changed\n").unwrap();
    let after = snaps.track().await.unwrap();
    // The model swaps `src` for a link to a directory outside the project.
    let outside = f.project.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::rename(f.project.join("src"), f.project.join("src-moved")).unwrap();
    std::os::unix::fs::symlink(&outside, f.project.join("src")).unwrap();
    let paths = snaps.changed(&before, &after).await.unwrap().paths;
    let error = snaps.restore(&before, &paths).await.unwrap_err();
    assert!(
        matches!(error, SnapshotError::Outside { ref path } if path == "src/a.txt"),
        "{error}"
    );
    assert_eq!(
        outside.read_dir().unwrap().count(),
        0,
        "nothing written outside"
    );
    assert_eq!(
        std::fs::read_to_string(f.project.join("b.txt")).unwrap(),
        "changed\n",
        "nothing written inside either"
    );
}

#[tokio::test]
async fn pruning_keeps_only_the_trees_still_in_use() {
    let f = fixture(false);
    let snaps = f.snapshots.project(&f.project).unwrap();
    let first = snaps.track().await.unwrap();
    std::fs::write(f.project.join("b.txt"), "second\n").unwrap();
    let second = snaps.track().await.unwrap();
    std::fs::write(f.project.join("b.txt"), "third\n").unwrap();
    let third = snaps.track().await.unwrap();
    snaps
        .keep_only(std::slice::from_ref(&third), std::time::Duration::ZERO)
        .await
        .unwrap();
    assert!(
        snaps.changes(&first, &third).await.is_err(),
        "the first tree is gone"
    );
    assert!(
        snaps.changes(&second, &third).await.is_err(),
        "so is the second"
    );
    let again = snaps.track().await.unwrap();
    assert_eq!(again, third);
    assert!(snaps.changes(&third, &again).await.unwrap().is_empty());
}

#[test]
fn no_snapshots_of_the_home_directory_or_the_root() {
    let snapshots = Snapshots::new(PathBuf::from("/tmp/nowhere"));
    assert!(snapshots.project(Path::new("/")).is_none());
    if let Some(home) = std::env::var_os("HOME") {
        assert!(snapshots.project(Path::new(&home)).is_none());
    }
    assert!(
        Snapshots::disabled()
            .project(Path::new("/work/p"))
            .is_none()
    );
}

#[tokio::test]
async fn a_file_swapped_for_a_link_is_replaced_never_written_through() {
    let f = fixture(false);
    let snaps = f.snapshots.project(&f.project).unwrap();
    let before = snaps.track().await.unwrap();
    // The model replaces b.txt by a link to a file outside the project.
    let outside = f.project.parent().unwrap().join("precious.txt");
    std::fs::write(&outside, "precious\n").unwrap();
    std::fs::remove_file(f.project.join("b.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, f.project.join("b.txt")).unwrap();
    snaps.restore(&before, &["b.txt".to_owned()]).await.unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n");
    let restored = f.project.join("b.txt");
    assert!(
        !restored
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(restored).unwrap(), "bee\n");
}
