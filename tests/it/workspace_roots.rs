//! Every folder of the workspace (ACP's `additionalDirectories`), through the binary: the
//! capability is advertised, a session opened with two more roots edits in both without a
//! question while a folder beside them still asks, its commands write in both and nowhere
//! else, `session/list` reports the roots and a load with them works, and a root that cannot
//! be one is refused with a clear error and no session.

use std::path::{Path, PathBuf};

use crate::support::{AcpProcess, MockLlm, TestEnv, run_all};
use serde_json::{Value, json};

struct Workspace {
    mock: MockLlm,
    env: TestEnv,
    agent: AcpProcess,
    session: String,
    roots: [PathBuf; 2],
    /// A folder beside the roots that is not one.
    beside: PathBuf,
}

async fn open(permission: Value) -> Workspace {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = permission;
    env.write_project_config(&config);
    let made = |name: &str| {
        let dir = env.root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::canonicalize(dir).unwrap()
    };
    let roots = [made("docs-repo"), made("lib-repo")];
    let beside = made("beside");
    std::fs::write(roots[1].join("lib.rs"), "fn old() {}\n").unwrap();
    let tmp = made("tmp").display().to_string();
    let mut agent = env.spawn_with(&[("TMPDIR", tmp.as_str())]);
    let init = agent.initialize().await;
    assert_eq!(
        init["result"]["agentCapabilities"]["sessionCapabilities"]["additionalDirectories"],
        json!({}),
        "{init}"
    );
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": roots}),
        )
        .await;
    let session = opened["result"]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("session/new failed: {opened}"))
        .to_owned();
    Workspace {
        mock,
        env,
        agent,
        session,
        roots,
        beside,
    }
}

fn file(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[tokio::test]
async fn both_extra_roots_take_edits_without_a_question_and_a_folder_beside_them_still_asks() {
    let mut w = open(json!({})).await;
    let told = run_all(
        &w.mock,
        &mut w.agent,
        &w.session,
        &[
            (
                "write",
                json!({"filePath": file(&w.roots[0], "guide.md"), "content": "# Guide\n"}),
            ),
            ("read", json!({"filePath": file(&w.roots[1], "lib.rs")})),
            (
                "edit",
                json!({"filePath": file(&w.roots[1], "lib.rs"),
                       "oldString": "fn old() {}", "newString": "fn new() {}"}),
            ),
            (
                "write",
                json!({"filePath": file(&w.beside, "x.txt"), "content": "no\n"}),
            ),
        ],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(w.roots[0].join("guide.md")).unwrap(),
        "# Guide\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.roots[1].join("lib.rs")).unwrap(),
        "fn new() {}\n",
        "{told:?}"
    );
    assert!(!w.beside.join("x.txt").exists(), "{told:?}");
    let asked: Vec<Value> = w
        .agent
        .permission_requests()
        .iter()
        .map(|r| r["params"]["toolCall"]["rawInput"].clone())
        .collect();
    assert_eq!(
        asked.len(),
        1,
        "only the folder beside the roots asks: {asked:?}"
    );
    assert_eq!(asked[0]["filePath"], file(&w.beside, "x.txt"));
}

#[tokio::test]
async fn commands_write_in_every_root_and_nowhere_else() {
    let everything = json!({"bash": "allow", "external_directory": "allow", "edit": "allow"});
    let mut w = open(everything).await;
    let line = |dir: &Path, name: &str| format!("echo hi > {}", file(dir, name));
    let told = run_all(
        &w.mock,
        &mut w.agent,
        &w.session,
        &[
            ("bash", json!({"command": line(&w.roots[0], "a.txt")})),
            ("bash", json!({"command": line(&w.roots[1], "b.txt")})),
            ("bash", json!({"command": line(&w.env.project, "p.txt")})),
            ("bash", json!({"command": line(&w.beside, "c.txt")})),
        ],
    )
    .await;
    for (dir, name) in [
        (&w.roots[0], "a.txt"),
        (&w.roots[1], "b.txt"),
        (&w.env.project, "p.txt"),
    ] {
        assert_eq!(
            std::fs::read_to_string(dir.join(name)).unwrap_or_default(),
            "hi\n",
            "{name}: {told:?}"
        );
    }
    assert!(!w.beside.join("c.txt").exists(), "{told:?}");
    assert!(told[3].contains("ermission denied"), "{}", told[3]);
}

#[tokio::test]
async fn the_list_reports_the_roots_and_a_load_activates_exactly_those_it_names() {
    let mut w = open(json!({})).await;
    let listed = w
        .agent
        .request("session/list", json!({"cwd": w.env.project}))
        .await;
    assert_eq!(
        listed["result"]["sessions"][0]["additionalDirectories"],
        json!(w.roots),
        "{listed}"
    );
    drop(w.agent);
    let mut agent = w.env.spawn();
    agent.initialize().await;
    let only = [&w.roots[1]];
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": w.session, "cwd": w.env.project, "mcpServers": [],
                   "additionalDirectories": only}),
        )
        .await;
    assert!(loaded.get("result").is_some(), "{loaded}");
    let listed = agent
        .request("session/list", json!({"cwd": w.env.project}))
        .await;
    assert_eq!(
        listed["result"]["sessions"][0]["additionalDirectories"],
        json!(only),
        "{listed}"
    );
    // The root the load left out is outside the workspace now: writing there asks.
    let told = run_all(
        &w.mock,
        &mut agent,
        &w.session,
        &[(
            "write",
            json!({"filePath": file(&w.roots[0], "late.md"), "content": "x\n"}),
        )],
    )
    .await;
    assert!(!w.roots[0].join("late.md").exists(), "{told:?}");
    assert_eq!(agent.permission_requests().len(), 1);
    let resumed = agent
        .request(
            "session/resume",
            json!({"sessionId": w.session, "cwd": w.env.project, "mcpServers": []}),
        )
        .await;
    assert!(resumed.get("result").is_some(), "{resumed}");
    let listed = agent
        .request("session/list", json!({"cwd": w.env.project}))
        .await;
    assert!(
        listed["result"]["sessions"][0]
            .get("additionalDirectories")
            .is_none_or(|d| d == &json!([])),
        "a resume without roots leaves none active: {listed}"
    );
}

#[tokio::test]
async fn a_root_that_cannot_be_one_is_refused_and_nothing_opens() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let file_root = env.root.path().join("a-file");
    std::fs::write(&file_root, "").unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let cases: [(PathBuf, &str); 3] = [
        (env.root.path().join("missing"), "does not exist"),
        (file_root, "is a file"),
        (PathBuf::from("/"), "root"),
    ];
    for (dir, why) in cases {
        let answer = agent
            .request(
                "session/new",
                json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": [dir]}),
            )
            .await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(why) && message.contains(&*dir.to_string_lossy()),
            "{message}"
        );
    }
    let listed = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    assert_eq!(listed["result"]["sessions"], json!([]), "{listed}");
}

#[tokio::test]
async fn undo_puts_back_every_root_and_redo_brings_the_turn_again() {
    let mut w = open(json!({})).await;
    let told = run_all(
        &w.mock,
        &mut w.agent,
        &w.session,
        &[
            (
                "write",
                json!({"filePath": file(&w.roots[0], "guide.md"), "content": "# Guide\n"}),
            ),
            ("read", json!({"filePath": file(&w.roots[1], "lib.rs")})),
            (
                "edit",
                json!({"filePath": file(&w.roots[1], "lib.rs"),
                       "oldString": "fn old() {}", "newString": "fn new() {}"}),
            ),
            (
                "write",
                json!({"filePath": "notes.md", "content": "notes\n"}),
            ),
        ],
    )
    .await;
    let lib = w.roots[1].join("lib.rs");
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "fn new() {}\n");
    assert!(w.roots[0].join("guide.md").exists(), "{told:?}");
    assert!(w.env.project.join("notes.md").exists(), "{told:?}");
    w.agent.prompt(&w.session, "/undo").await;
    assert!(!w.roots[0].join("guide.md").exists());
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "fn old() {}\n");
    assert!(!w.env.project.join("notes.md").exists());
    assert!(
        w.agent.agent_text().contains("put back 3 files"),
        "{}",
        w.agent.agent_text()
    );
    w.agent.prompt(&w.session, "/redo").await;
    assert_eq!(
        std::fs::read_to_string(w.roots[0].join("guide.md")).unwrap(),
        "# Guide\n"
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "fn new() {}\n");
}

#[tokio::test]
async fn each_roots_instructions_and_skills_reach_the_model() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let root = env.root.path().join("shared-lib");
    std::fs::create_dir_all(root.join(".agents/skills/release")).unwrap();
    std::fs::write(root.join("AGENTS.md"), "Run `make check` in shared-lib.\n").unwrap();
    std::fs::write(
        root.join(".agents/skills/release/SKILL.md"),
        "---\nname: release\ndescription: Cut a release of shared-lib\n---\nTag it.\n",
    )
    .unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": [root]}),
        )
        .await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    mock.push(crate::support::mock_llm::openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hello").await;
    let sent = mock.requests()[0].body.to_string();
    assert!(sent.contains("Run `make check` in shared-lib."), "{sent}");
    assert!(
        sent.contains(&format!("Also in the workspace: {}", root.display())),
        "{sent}"
    );
    assert!(sent.contains("Cut a release of shared-lib"), "{sent}");
}

#[tokio::test]
async fn tandem_run_takes_more_roots_with_add_dir_and_refuses_a_bad_one() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let root = env.root.path().join("other");
    std::fs::create_dir_all(&root).unwrap();
    let target = root.join("made.txt");
    let args = json!({"filePath": target, "content": "made\n"});
    mock.push(crate::support::mock_llm::openai_tool_call(
        "c1",
        "write",
        &[&args.to_string()],
    ));
    mock.push(crate::support::mock_llm::openai_text(&["Done."], "stop"));
    let root_arg = root.display().to_string();
    let run = |args: Vec<String>| {
        let mut command = env.command(&args.iter().map(String::as_str).collect::<Vec<_>>());
        command.stdin(std::process::Stdio::null());
        tokio::task::spawn_blocking(move || command.output().unwrap())
    };
    let words = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let output = run(words(&[
        "run",
        "--deny",
        "--add-dir",
        &root_arg,
        "write it",
    ]))
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "made\n",
        "written without a question (every question is refused here): {stderr}"
    );
    let missing = env.root.path().join("missing").display().to_string();
    let output = run(words(&["run", "--add-dir", &missing, "hello"]))
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success());
    assert!(
        stderr.contains(&format!("the workspace folder `{missing}` does not exist")),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_file_in_another_root_gets_its_language_server() {
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py");
    let server = json!({"command": ["python3", fake, "ok", "lsp-marker-roots-4301"],
                        "extensions": [".fk"]});
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["lsp"] = json!({"fake": server});
    // A loaded machine can be slow to start the server's interpreter.
    config["diagnostics"] = json!({"wait_ms": 20000});
    env.write_project_config(&config);
    let root = env.root.path().join("other");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("lib.fk"), "fine\n").unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": [root]}),
        )
        .await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    let lib = file(&root, "lib.fk");
    let told = run_all(
        &mock,
        &mut agent,
        &session,
        &[
            ("read", json!({"filePath": lib})),
            (
                "edit",
                json!({"filePath": lib, "oldString": "fine", "newString": "ERROR here"}),
            ),
        ],
    )
    .await;
    assert_eq!(
        told[1],
        format!(
            "Edit applied successfully.\n\nThe language server (fake) reports 1 error in {lib}; \
             fix it:\n<diagnostics file=\"{lib}\">\n1:1 fake error here [fake]\n</diagnostics>"
        )
    );
}

#[tokio::test]
async fn language_servers_get_every_root_as_a_workspace_folder() {
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fake_lsp.py");
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let log = env.root.path().join("folders.jsonl");
    let server = json!({"command": ["python3", fake, "ok", "lsp-marker-folders-4302"],
                        "extensions": [".fk"], "env": {"FAKE_LSP_FOLDERS": log}});
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["lsp"] = json!({"fake": server});
    config["diagnostics"] = json!({"wait_ms": 20000});
    env.write_project_config(&config);
    let made = |name: &str| {
        let dir = env.root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.fk"), "fine\n").unwrap();
        std::fs::canonicalize(dir).unwrap()
    };
    let (other, third) = (made("other"), made("third"));
    std::fs::write(env.project.join("a.fk"), "fine\n").unwrap();
    let project = std::fs::canonicalize(&env.project).unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let mut edit_in = async |roots: &[&PathBuf], folder: &Path, (old, new): (&str, &str)| {
        let opened = agent
            .request(
                "session/new",
                json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": roots}),
            )
            .await;
        let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
        let edit = json!({"filePath": file(folder, "a.fk"), "oldString": old, "newString": new});
        let told = run_all(&mock, &mut agent, &session, &[("edit", edit)]).await;
        assert!(
            told[0].starts_with("Edit applied successfully."),
            "{told:?}"
        );
    };
    edit_in(&[&other], &project, ("fine", "one")).await;
    edit_in(&[&other], &other, ("fine", "two")).await;
    // A second session shares the project's server and brings one more root.
    edit_in(&[&third], &project, ("one", "three")).await;
    let uri = |p: &Path| format!("file://{}", p.display());
    let events: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events,
        [
            json!({"initialize": [uri(&project), uri(&other)]}),
            json!({"initialize": [uri(&other), uri(&project)]}),
            json!({"added": [uri(&third)]}),
        ]
    );
}

#[tokio::test]
async fn another_roots_config_narrows_at_once_and_asks_trust_for_what_it_would_start() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let root = env.root.path().join("vendor-lib");
    std::fs::create_dir_all(&root).unwrap();
    let server = json!({"type": "local", "command": ["vendor-mcp-server"]});
    std::fs::write(
        root.join("tandem.json"),
        json!({"permission": {"edit": {"*.lock": "deny"}}, "mcp": {"vendor": server}}).to_string(),
    )
    .unwrap();
    let mut agent = env.spawn();
    agent.initialize().await;
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [], "additionalDirectories": [root]}),
        )
        .await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    let told = run_all(
        &mock,
        &mut agent,
        &session,
        &[
            (
                "write",
                json!({"filePath": file(&root, "deps.lock"), "content": "x\n"}),
            ),
            (
                "write",
                json!({"filePath": file(&root, "notes.md"), "content": "x\n"}),
            ),
        ],
    )
    .await;
    assert!(!root.join("deps.lock").exists(), "{told:?}");
    assert!(root.join("notes.md").exists(), "{told:?}");
    let asked: Vec<String> = agent
        .permission_requests()
        .iter()
        .map(|r| {
            r["params"]["toolCall"]["title"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].starts_with("Trust this folder?")
            && asked[0].ends_with(&format!("Folder: {}", root.display())),
        "{asked:?}"
    );
}
