//! A hostile model against the file tools' paths, through the binary, with a client that
//! rejects every prompt: `..`, absolute paths, `/./`, trailing slashes, symlinks to files and
//! folders outside, dangling symlinks to missing files and folders, and `.env` secrets reached
//! through a symlink or a search. Nothing outside may be read, written or removed, and no
//! secret may reach the model; symlinks that stay inside keep working.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::support::acp::TestEnv;
use serde_json::{Value, json};

const OUTSIDE_SECRET: &str = "OUTSIDE-SECRET";
const ENV_SECRET: &str = "ENV-SECRET";

/// A project beside an `outside` folder, with symlinks of every kind and `.env` secrets.
struct Layout {
    outside: PathBuf,
}

fn lay_out(env: &TestEnv) -> Layout {
    let project = &env.project;
    let outside = std::fs::canonicalize(env.root.path())
        .unwrap()
        .join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("{OUTSIDE_SECRET}\n")).unwrap();
    std::fs::write(project.join("inside.txt"), "inside\n").unwrap();
    std::fs::write(project.join("src/lib.rs"), "fn main() {}\n").unwrap();
    std::fs::write(project.join(".env"), format!("TOKEN={ENV_SECRET}\n")).unwrap();
    std::fs::create_dir_all(project.join("config")).unwrap();
    std::fs::write(
        project.join("config/prod.env"),
        format!("KEY={ENV_SECRET}\n"),
    )
    .unwrap();
    let links: &[(&str, PathBuf)] = &[
        ("file_out", outside.join("secret.txt")),
        ("dir_out", outside.clone()),
        ("file_in", project.join("inside.txt")),
        ("dir_in", project.join("src")),
        ("dangling_file", outside.join("missing.txt")),
        ("dangling_dir", outside.join("missing_dir")),
        ("relative_out", PathBuf::from("../outside/secret.txt")),
        ("env_link", project.join(".env")),
        ("chain", project.join("file_out")),
    ];
    for (name, target) in links {
        symlink(target, project.join(name)).unwrap();
    }
    Layout { outside }
}

fn outside_files(outside: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn no_path_trick_reads_writes_or_removes_outside_the_project() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let Layout { outside } = lay_out(&env);
    let root = std::fs::canonicalize(env.root.path()).unwrap();
    let out = outside.display().to_string();
    let rootd = root.display().to_string();
    let add = |path: &str| json!({"patchText": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch")});
    let reads: Vec<(&str, Value)> = vec![
        ("read", json!({"filePath": "../outside/secret.txt"})),
        ("read", json!({"filePath": format!("{out}/secret.txt")})),
        (
            "read",
            json!({"filePath": format!("{rootd}/./outside/./secret.txt")}),
        ),
        ("read", json!({"filePath": "src/../../outside/secret.txt"})),
        ("read", json!({"filePath": "file_out"})),
        ("read", json!({"filePath": "chain"})),
        ("read", json!({"filePath": "relative_out"})),
        ("read", json!({"filePath": "dir_out/secret.txt"})),
        ("read", json!({"filePath": "dir_out/"})),
        (
            "read",
            json!({"filePath": "dir_in/../../outside/secret.txt"}),
        ),
        ("list", json!({"path": "dir_out"})),
        ("list", json!({"path": ".."})),
        ("list", json!({"path": "dir_out/"})),
        ("glob", json!({"pattern": "*", "path": "dir_out"})),
        ("glob", json!({"pattern": "outside/*", "path": ".."})),
        ("grep", json!({"pattern": "SECRET", "path": "dir_out"})),
        ("grep", json!({"pattern": "SECRET", "path": ".."})),
        ("grep", json!({"pattern": "SECRET", "path": "file_out"})),
    ];
    let writes: Vec<(&str, Value)> = vec![
        (
            "write",
            json!({"filePath": "../outside/w1.txt", "content": "x"}),
        ),
        (
            "write",
            json!({"filePath": format!("{out}/w2.txt"), "content": "x"}),
        ),
        (
            "write",
            json!({"filePath": format!("{out}/./w3.txt"), "content": "x"}),
        ),
        (
            "write",
            json!({"filePath": "dir_out/w4.txt", "content": "x"}),
        ),
        (
            "write",
            json!({"filePath": "dangling_file", "content": "x"}),
        ),
        (
            "write",
            json!({"filePath": "dangling_dir/w5.txt", "content": "x"}),
        ),
        ("write", json!({"filePath": "file_out", "content": "x"})),
        (
            "edit",
            json!({"filePath": "file_out", "oldString": "OUTSIDE", "newString": "gone"}),
        ),
        (
            "edit",
            json!({"filePath": "dangling_file", "oldString": "", "newString": "x"}),
        ),
        (
            "edit",
            json!({"filePath": "relative_out", "oldString": "OUTSIDE", "newString": "gone"}),
        ),
        ("apply_patch", add("dir_out/w6.txt")),
        ("apply_patch", add("dangling_file")),
        ("apply_patch", add("../outside/w7.txt")),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Delete File: file_out\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Update File: file_out\n@@\n-OUTSIDE-SECRET\n+gone\n*** End Patch"}),
        ),
        (
            "apply_patch",
            json!({"patchText": "*** Begin Patch\n*** Update File: inside.txt\n*** Move to: ../outside/w8.txt\n@@\n-inside\n+moved\n*** End Patch"}),
        ),
    ];
    let before = outside_files(&outside);
    let calls: Vec<(&str, Value)> = reads.iter().chain(&writes).cloned().collect();
    assert!(calls.len() >= 34);
    let results = crate::support::run_all(&mock, &mut agent, &session, &calls).await;
    let leaked: Vec<String> = calls
        .iter()
        .zip(&results)
        .filter(|(_, result)| result.contains(OUTSIDE_SECRET) || result.contains("w1.txt"))
        .map(|((tool, args), result)| format!("{tool} {args}: {result}"))
        .collect();
    assert!(leaked.is_empty(), "leaked:\n{}", leaked.join("\n"));
    assert_eq!(
        outside_files(&outside),
        before,
        "nothing created or removed outside"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("secret.txt")).unwrap(),
        format!("{OUTSIDE_SECRET}\n")
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("inside.txt")).unwrap(),
        "inside\n"
    );
    let asked = agent.permission_requests().len();
    assert!(asked >= 1, "the first trick asked, and was rejected");
    for (call, result) in calls.iter().zip(&results) {
        assert!(
            result.starts_with("Rejected")
                || result.contains("outside the project")
                || result.contains("rejected"),
            "{call:?}: {result}"
        );
    }
}

#[tokio::test]
async fn env_secrets_ask_through_a_symlink_and_searches_withhold_them() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    lay_out(&env);
    let calls: Vec<(&str, Value)> = vec![
        ("read", json!({"filePath": ".env"})),
        ("read", json!({"filePath": "env_link"})),
        ("read", json!({"filePath": "sub/../.env"})),
        ("read", json!({"filePath": "config/prod.env"})),
        ("grep", json!({"pattern": "SECRET"})),
        ("grep", json!({"pattern": "KEY", "path": "config"})),
        ("grep", json!({"pattern": "TOKEN", "path": ".env"})),
        ("glob", json!({"pattern": "**/*.env"})),
        ("list", json!({"path": "config"})),
        ("bash", json!({"command": "cat env_link"})),
        ("bash", json!({"command": "grep -r SECRET config"})),
    ];
    let results = crate::support::run_all(&mock, &mut agent, &session, &calls).await;
    for (call, result) in calls.iter().zip(&results) {
        assert!(!result.contains(ENV_SECRET), "{call:?} leaked: {result}");
        assert!(
            !result.contains("prod.env") || result.starts_with("Rejected"),
            "{call:?} showed: {result}"
        );
    }
    assert!(
        results[4].contains("1 file was left out: the read rules ask"),
        "{}",
        results[4]
    );
    assert!(results[7].contains("left out"), "{}", results[7]);
    assert!(results[8].contains("left out"), "{}", results[8]);
}

#[tokio::test]
async fn symlinks_inside_keep_working_and_the_editor_is_sent_the_checked_path() {
    let (mock, env, _agent, _session) = crate::support::start("openai").await;
    lay_out(&env);
    let mut agent = env.spawn();
    agent.editor = Some(Default::default());
    agent
        .initialize_with(json!({"fs": {"readTextFile": true, "writeTextFile": true}}))
        .await;
    let session = agent.new_session(&env.project).await;
    let calls: Vec<(&str, Value)> = vec![
        ("read", json!({"filePath": "file_in"})),
        (
            "write",
            json!({"filePath": "file_in", "content": "rewritten\n"}),
        ),
        ("read", json!({"filePath": "dir_in/lib.rs"})),
        ("grep", json!({"pattern": "fn main", "path": "dir_in"})),
    ];
    let results = crate::support::run_all(&mock, &mut agent, &session, &calls).await;
    assert_eq!(agent.permission_requests(), Vec::<Value>::new());
    assert!(results[0].contains("1: inside"), "{}", results[0]);
    assert!(results[2].contains("fn main"), "{}", results[2]);
    assert!(results[3].contains("Found 1 matches"), "{}", results[3]);
    assert_eq!(
        agent.editor.as_ref().unwrap().writes,
        [env.project.join("inside.txt")],
        "the real file, not the link"
    );
    assert!(
        std::fs::symlink_metadata(env.project.join("file_in"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link itself is untouched"
    );
}
