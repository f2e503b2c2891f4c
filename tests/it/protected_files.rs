//! Files something runs or obeys on its own (git hooks and config, direnv, editor tasks,
//! Tandem's own config): through the binary, with every edit and command allowed, writing one
//! still asks, says why, and a rejection leaves it unwritten; an "always" does not cover it.

use serde_json::{Value, json};

const TARGETS: &[&str] = &[
    ".git/hooks/pre-commit",
    ".git/config",
    "tandem.json",
    ".tandem/agent/evil.md",
    "opencode.json",
    ".opencode/agent/evil.md",
    ".envrc",
    ".vscode/tasks.json",
    ".devcontainer/devcontainer.json",
];

fn everything_allowed() -> Value {
    json!({"permission": {"edit": "allow", "bash": "allow"}})
}

fn calls() -> Vec<(&'static str, Value)> {
    let mut calls = Vec::new();
    for target in TARGETS {
        calls.push((
            "write",
            json!({"filePath": target, "content": "touch pwned\n"}),
        ));
    }
    calls.push((
        "bash",
        json!({"command": "echo 'touch pwned' > .git/hooks/post-checkout"}),
    ));
    calls.push((
        "bash",
        json!({"command": "git config core.pager 'touch pwned'"}),
    ));
    calls
}

#[tokio::test]
async fn protected_files_ask_under_edit_allow_and_a_rejection_writes_nothing() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", everything_allowed()).await;
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&env.project)
        .status()
        .unwrap();
    let config_before = std::fs::read(env.project.join(".git/config")).unwrap();
    let tandem_before = std::fs::read(env.project.join("tandem.json")).ok();
    // The model reads the files that exist first: writing over an unread file is refused
    // before any question (tests/it/edits_as_sent.rs).
    for existing in [".git/config", "tandem.json"] {
        let read = ("read", json!({"filePath": existing}));
        crate::support::run_all(&mock, &mut agent, &session, &[read]).await;
    }
    // One turn a call: each is asked about on its own (a rejection settles the rest of a turn).
    let mut results = Vec::new();
    for call in calls() {
        results.extend(crate::support::run_all(&mock, &mut agent, &session, &[call]).await);
    }
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), calls().len(), "{results:#?}");
    let paths = TARGETS.iter().copied().chain([
        ".git/hooks/post-checkout",
        ".git/config",
        ".git/hooks/post-merge",
    ]);
    for (request, target) in asked.iter().zip(paths) {
        let title = request["params"]["toolCall"]["title"].as_str().unwrap();
        assert!(
            title.contains(&format!("(Tandem asks about {target}: ")),
            "{target}: {title}"
        );
    }
    for target in TARGETS
        .iter()
        .filter(|t| !matches!(**t, ".git/config" | "tandem.json"))
    {
        assert!(!env.project.join(target).exists(), "{target} was written");
    }
    assert!(!env.project.join(".git/hooks/post-checkout").exists());
    assert!(!env.project.join(".git/hooks/post-merge").exists());
    assert_eq!(
        std::fs::read(env.project.join(".git/config")).unwrap(),
        config_before
    );
    assert_eq!(
        std::fs::read(env.project.join("tandem.json")).ok(),
        tandem_before
    );
}

#[tokio::test]
async fn an_always_answer_does_not_cover_the_next_edit_of_a_protected_file() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"permission": {"edit": "ask"}})).await;
    agent.permission_choice = Some("allow_always".into());
    let write = |text: &str| ("write", json!({"filePath": ".envrc", "content": text}));
    crate::support::run_all(&mock, &mut agent, &session, &[write("a\n"), write("b\n")]).await;
    assert_eq!(agent.permission_requests().len(), 2);
    assert_eq!(
        std::fs::read_to_string(env.project.join(".envrc")).unwrap(),
        "b\n"
    );
    // An ordinary file's "always" still holds.
    let plain = |text: &str| ("write", json!({"filePath": "a.txt", "content": text}));
    crate::support::run_all(&mock, &mut agent, &session, &[plain("a\n"), plain("b\n")]).await;
    assert_eq!(agent.permission_requests().len(), 3);
}

#[tokio::test]
async fn a_steering_file_a_command_creates_unasked_is_set_aside_and_the_person_told() {
    // Everything allowed: an interpreter writes files the rules cannot see, where the sandbox's
    // read-only mounts cannot reach a path that did not exist yet.
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", everything_allowed()).await;
    let plant = "python3 -c \"import os; os.makedirs('.tandem/agent', exist_ok=True); \
                 open('.tandem/agent/evil.md', 'w').write('---\\nmode: primary\\n---\\nx'); \
                 open('.envrc', 'w').write('touch pwned'); open('kept.txt', 'w').write('ok')\"";
    crate::support::run_all(
        &mock,
        &mut agent,
        &session,
        &[("bash", json!({"command": plant}))],
    )
    .await;
    assert!(!env.project.join(".tandem").exists());
    assert!(!env.project.join(".envrc").exists());
    // Set aside, not deleted (the person may have made it by hand meanwhile).
    assert!(
        env.project
            .join(".tandem.set-aside-by-tandem/agent/evil.md")
            .exists()
    );
    assert!(env.project.join("kept.txt").exists(), "ordinary files stay");
    assert!(
        agent
            .agent_text()
            .contains("Tandem set aside .tandem, .envrc (renamed with .set-aside-by-tandem)"),
        "{}",
        agent.agent_text()
    );
    // Approved through the rules (the person says yes), the same file stays.
    agent.permission_choice = Some("allow_once".into());
    let write = (
        "write",
        json!({"filePath": ".envrc", "content": "export A=1\n"}),
    );
    crate::support::run_all(&mock, &mut agent, &session, &[write]).await;
    assert!(env.project.join(".envrc").exists());
}
