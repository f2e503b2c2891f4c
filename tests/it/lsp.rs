//! Language servers and formatters through the binary: real pylsp (with pyflakes) and ruff,
//! real typescript-language-server, installed by `.ci/install-language-servers`; and a small
//! fake server (`tests/fixtures/fake_lsp.py`) for crashes, silence, slow starts and the
//! processes left behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{call_tool, call_updates};

fn cache() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/cache")
}

fn fake_server() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fake_lsp.py")
        .display()
        .to_string()
}

/// A `lsp` entry for the fake server in `mode`, its processes marked by `marker`.
fn fake(mode: &str, marker: &str) -> Value {
    json!({"command": ["python3", fake_server(), mode, marker], "extensions": [".fk"]})
}

fn link(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(from, to).unwrap();
}

/// How many processes' command lines hold `marker`.
fn running(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .map(|raw| String::from_utf8_lossy(&raw).contains(marker))
                .unwrap_or(false)
        })
        .count()
}

/// Waits up to 5 s for the processes marked `marker` to be gone.
async fn gone(marker: &str) -> bool {
    for _ in 0..100 {
        if running(marker) == 0 {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn text(result: &Value) -> String {
    result["content"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn pylsp_reports_an_undefined_name_ruff_formats_and_the_fix_comes_back_clean() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"diagnostics": {"wait_ms": 20000}, "permission": {"external_directory": "deny"}}),
    )
    .await;
    let venv = cache().join("lsp-py/bin");
    link(&venv.join("pylsp"), &env.project.join(".venv/bin/pylsp"));
    link(&venv.join("ruff"), &env.project.join(".venv/bin/ruff"));
    // The person trusts the folder with the servers in its virtualenv.
    env.trust();
    std::fs::write(
        env.project.join("pyproject.toml"),
        "[project]\nname = \"demo\"\n\n[tool.ruff]\nline-length = 88\n",
    )
    .unwrap();

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "app.py", "content": "x=1\nprint(undefined_name)\n"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Created app.py (2 lines).\n\nruff formatted app.py after the change; the file now differs from what you wrote as follows, and later edits must match the formatted text:\n```diff\n@@ -1,2 +1,2 @@\n-x=1\n+x = 1\n print(undefined_name)\n```\n\nThe language server (pylsp) reports 1 error in app.py; fix it:\n<diagnostics file=\"app.py\">\n2:7 undefined name 'undefined_name' [pyflakes]\n</diagnostics>"
    );
    let path = env.project.join("app.py");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "x = 1\nprint(undefined_name)\n"
    );
    let shown = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(shown["content"][0]["type"], "diff");
    assert_eq!(
        shown["content"][0]["newText"],
        "x = 1\nprint(undefined_name)\n"
    );
    assert!(
        shown["content"][1]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("2:7 undefined name 'undefined_name' [pyflakes]"),
        "the editor sees the errors: {shown}"
    );

    // The next edit matches the formatted text exactly, and fixes the error.
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "app.py", "oldString": "x = 1\nprint(undefined_name)", "newString": "x = 2\nprint(x)"}),
    )
    .await;
    assert_eq!(text(&result), "Edit applied successfully.");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 2\nprint(x)\n");

    // Navigation: definition, references, hover, a file's symbols.
    std::fs::write(
        env.project.join("lib.py"),
        "def greet(name):\n    return name\n",
    )
    .unwrap();
    std::fs::write(
        env.project.join("main.py"),
        "from lib import greet\n\nprint(greet(\"a\"))\n",
    )
    .unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "definition", "filePath": "main.py", "line": 3, "character": 8}),
    )
    .await;
    assert_eq!(text(&result), "lib.py:1:5: def greet(name):");
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "references", "filePath": "lib.py", "line": 1, "character": 6}),
    )
    .await;
    let references = text(&result);
    for place in [
        "lib.py:1:5: def greet(name):",
        "main.py:1:17: from lib import greet",
        "main.py:3:7: print(greet(\"a\"))",
    ] {
        assert!(references.contains(place), "{place} in {references}");
    }
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "hover", "filePath": "main.py", "line": 3, "character": 8}),
    )
    .await;
    assert!(text(&result).contains("greet(name)"), "{result}");
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "documentSymbol", "filePath": "lib.py"}),
    )
    .await;
    assert!(text(&result).contains("function greet"), "{result}");
    // A definition outside the project (the standard library) passes external_directory.
    std::fs::write(
        env.project.join("uses.py"),
        "import json\n\njson.dumps(1)\n",
    )
    .unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "definition", "filePath": "uses.py", "line": 3, "character": 7}),
    )
    .await;
    assert_eq!(
        text(&result),
        "No results.\n(1 more outside the project, not shown: the external_directory rule does not allow them)"
    );
}

#[tokio::test]
async fn typescript_errors_and_navigation_by_symbol_name() {
    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"diagnostics": {"wait_ms": 30000}})).await;
    let bin = cache().join("lsp-ts/node_modules/.bin/typescript-language-server");
    link(
        &bin,
        &env.project
            .join("node_modules/.bin/typescript-language-server"),
    );
    env.trust();
    std::fs::write(
        env.project.join("package.json"),
        r#"{"name": "demo", "private": true}"#,
    )
    .unwrap();
    std::fs::write(
        env.project.join("tsconfig.json"),
        r#"{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}"#,
    )
    .unwrap();
    std::fs::create_dir_all(env.project.join("src")).unwrap();
    std::fs::write(
        env.project.join("src/math.ts"),
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    )
    .unwrap();
    std::fs::write(
        env.project.join("src/main.ts"),
        "import { add } from \"./math\";\nexport const total: number = add(1, 2);\n",
    )
    .unwrap();

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "src/main.ts", "oldString": "add(1, 2);", "newString": "add(1, \"2\");"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Edit applied successfully.\n\nThe language server (typescript) reports 1 error in src/main.ts; fix it:\n<diagnostics file=\"src/main.ts\">\n2:37 Argument of type 'string' is not assignable to parameter of type 'number'. [typescript]\n</diagnostics>"
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "src/main.ts", "oldString": "add(1, \"2\");", "newString": "add(1, 2);"}),
    )
    .await;
    assert_eq!(text(&result), "Edit applied successfully.");

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "workspaceSymbol", "filePath": "src/main.ts", "symbol": "add"}),
    )
    .await;
    assert!(
        text(&result).contains("src/math.ts:1:17: function add"),
        "{result}"
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "lsp",
        json!({"operation": "references", "filePath": "src/main.ts", "symbol": "add"}),
    )
    .await;
    let references = text(&result);
    for place in [
        "src/math.ts:1:17: export function add(a: number, b: number): number {",
        "src/main.ts:1:10: import { add } from \"./math\";",
        "src/main.ts:2:30: export const total: number = add(1, 2);",
    ] {
        assert!(references.contains(place), "{place} in {references}");
    }
}

#[tokio::test]
async fn errors_elsewhere_are_counted_a_crashing_server_is_restarted_once_then_turned_off() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"lsp": {"fake": fake("ok", "lsp-marker-ok-4101"), "crashy": {
            "command": ["python3", fake_server(), "crash", "lsp-marker-crash-4102"],
            "extensions": [".cr"]}}}),
    )
    .await;
    std::fs::write(env.project.join("a.fk"), "fine\n").unwrap();
    assert_eq!(
        running("lsp-marker-ok-4101"),
        0,
        "nothing starts before a file is touched"
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "a.fk", "oldString": "fine", "newString": "ERROR here\nBREAKS other"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Edit applied successfully.\n\nThe language server (fake) reports 1 error in a.fk; fix it:\n<diagnostics file=\"a.fk\">\n1:1 fake error here [fake]\n</diagnostics>\n\nErrors also appeared in 1 other file of the project: other.fk (1)."
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "a.fk", "oldString": "ERROR here\nBREAKS other", "newString": "fine"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Edit applied successfully.",
        "clean: no block"
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "apply_patch",
        json!({"patchText": "*** Begin Patch\n*** Add File: c.fk\n+ok\n+ERROR\n*** End Patch"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Patch applied:\nA c.fk\n\nThe language server (fake) reports 1 error in c.fk; fix it:\n<diagnostics file=\"c.fk\">\n2:1 fake error here [fake]\n</diagnostics>"
    );
    // A second session of the process shares the running server.
    let other = agent.new_session(&env.project).await;
    call_tool(
        &mock,
        &mut agent,
        &other,
        "read",
        json!({"filePath": "a.fk"}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        running("lsp-marker-ok-4101"),
        1,
        "one server for both sessions"
    );

    // The crashing server: the first crash restarts it, the second turns it off and says why.
    let (_, first) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "b.cr", "content": "one\n"}),
    )
    .await;
    assert_eq!(text(&first), "Created b.cr (1 lines).");
    let (_, second) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "b.cr", "content": "two\n"}),
    )
    .await;
    assert_eq!(
        text(&second),
        "Replaced b.cr (1 lines).\n\nThe language server crashy failed 2 times and is off until Tandem restarts: it exited; its last output:\nfake: crashing on purpose"
    );
    let (_, third) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "b.cr", "content": "three\n"}),
    )
    .await;
    assert_eq!(text(&third), "Replaced b.cr (1 lines).", "told once");
    assert_eq!(running("lsp-marker-crash-4102"), 0);

    let response = agent.prompt(&session, "/diagnostics").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let said: String = agent
        .updates_of("agent_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(said.contains("Language servers:\n"), "{said}");
    assert!(said.contains("  fake in .: running (pid "), "{said}");
    assert!(
        said.contains("  crashy in .: off: it exited; its last output:\nfake: crashing on purpose"),
        "{said}"
    );
    assert_eq!(mock.requests().len(), 14, "/diagnostics asks no model");
}

#[tokio::test]
async fn a_silent_or_slow_server_does_not_hold_the_turn() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"diagnostics": {"wait_ms": 600}, "lsp": {
            "silent": {"command": ["python3", fake_server(), "silent", "lsp-marker-4201"], "extensions": [".si"]},
            "slow": {"command": ["python3", fake_server(), "slow", "lsp-marker-4202"], "extensions": [".fk"]}}}),
    )
    .await;
    std::fs::write(env.project.join("a.si"), "x\n").unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "a.si", "oldString": "x", "newString": "ERROR"}),
    )
    .await;
    assert_eq!(text(&result), "Edit applied successfully.");
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "b.fk", "content": "ERROR\n"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Created b.fk (1 lines).",
        "still indexing: unchecked"
    );
    // Once it has started (as /diagnostics reports it), the next edit is checked.
    let mut up = false;
    for _ in 0..200 {
        agent.prompt(&session, "/diagnostics").await;
        let said = agent.updates_of("agent_message_chunk");
        let last = said
            .last()
            .and_then(|u| u["content"]["text"].as_str())
            .unwrap_or_default();
        if last.contains("  slow in .: running (pid ") {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "the slow server came up");
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "b.fk", "content": "ERROR again\n"}),
    )
    .await;
    assert!(
        text(&result).contains("1:1 fake error here [fake]"),
        "{result}"
    );
}

#[tokio::test]
async fn no_server_is_left_after_stdin_closes_sigterm_or_sigkill() {
    for (n, ending) in ["stdin", "sigterm", "sigkill"].into_iter().enumerate() {
        let marker = format!("lsp-marker-end-{n}-4301");
        let (mock, env, mut agent, session) =
            crate::support::start_with("openai", json!({"lsp": {"fake": fake("ok", &marker)}}))
                .await;
        std::fs::write(env.project.join("a.fk"), "x\n").unwrap();
        call_tool(
            &mock,
            &mut agent,
            &session,
            "read",
            json!({"filePath": "a.fk"}),
        )
        .await;
        // Up to 30 s: on a loaded machine the server's interpreter can be slow to start (15 s
        // once fell short in a fresh-clone CI run with another build beside it).
        for _ in 0..600 {
            if running(&marker) > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(running(&marker) > 0, "reading the file started its server");
        match ending {
            "stdin" => {
                agent.shutdown().await;
            }
            "sigterm" => {
                let pid = agent.child.id().unwrap() as i32;
                // SAFETY: a signal to the child this test started.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                let _ = agent.child.wait().await;
            }
            _ => {
                agent.child.start_kill().unwrap();
                let _ = agent.child.wait().await;
            }
        }
        assert!(
            gone(&marker).await,
            "the server ended with Tandem ({ending})"
        );
    }
}

#[tokio::test]
async fn a_failing_formatter_keeps_the_edit_and_says_so_and_false_turns_both_off() {
    let (mock, env, mut agent, session) = crate::support::start_with(
        "openai",
        json!({"formatter": {"broken": {
            "command": ["python3", "-c", "import sys; sys.stderr.write('cannot parse ' + sys.argv[1].rsplit('/', 1)[1] + '\\n'); sys.exit(2)", "$FILE"],
            "extensions": ["fk"]}}}),
    )
    .await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "a.fk", "content": "as written\n"}),
    )
    .await;
    assert_eq!(
        text(&result),
        "Created a.fk (1 lines).\n\nThe formatter broken failed on a.fk, so the file keeps your text as written: it exited with exit status: 2: cannot parse a.fk"
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("a.fk")).unwrap(),
        "as written\n"
    );

    let (mock, env, mut agent, session) =
        crate::support::start_with("openai", json!({"formatter": false, "lsp": false})).await;
    let venv = cache().join("lsp-py/bin");
    link(&venv.join("pylsp"), &env.project.join(".venv/bin/pylsp"));
    link(&venv.join("ruff"), &env.project.join(".venv/bin/ruff"));
    std::fs::write(env.project.join("ruff.toml"), "").unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "app.py", "content": "x=undefined\n"}),
    )
    .await;
    assert_eq!(text(&result), "Created app.py (1 lines).");
    let offered: Vec<String> = mock.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!offered.contains(&"lsp".to_owned()), "{offered:?}");
}

#[tokio::test]
async fn doctor_lists_the_servers_found_and_starts_each_once() {
    let env = crate::support::TestEnv::new();
    env.write_project_config(&json!({
        "lsp": {"fake": fake("ok", "lsp-marker-doctor-4401"),
                "broken": {"command": ["python3", fake_server(), "crash-at-start"], "extensions": [".b"]},
                "ghost": {"command": ["no-such-language-server-xyz"], "extensions": [".g"]}},
        "formatter": {"mine": {"command": ["python3", "$FILE"], "extensions": [".fk"]}},
    }));
    std::fs::write(env.project.join("ruff.toml"), "").unwrap();
    let output = env.command(&["doctor", "--timeout", "5"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("✓ Language servers:\n"), "{out}");
    assert!(out.contains("\n  fake: "), "{out}");
    assert!(
        out.contains("! language server broken (") && out.contains("fails: it did not initialize: the language server exited; its last output:\nfake: cannot start"),
        "{out}"
    );
    assert!(out.contains("  not installed: "), "{out}");
    assert!(out.contains("ghost"), "{out}");
    assert!(out.contains("✓ language server fake: answers in "), "{out}");
    assert!(out.contains("Formatters:\n  mine: "), "{out}");
    assert!(
        gone("lsp-marker-doctor-4401").await,
        "doctor stops what it started"
    );
}

#[tokio::test]
async fn a_server_planted_in_the_project_after_trust_never_runs() {
    // A model could write `.venv/bin/pylsp` itself: a program in the project runs only when
    // the person trusted the folder with that very file, and never before the person's own.
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let escape = env.data.join("planted");
    let inside = env.project.join("planted-ran");
    let planted = env.project.join(".venv/bin/pylsp");
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::fs::write(
        &planted,
        format!(
            "#!/bin/sh\necho planted > '{}'\necho planted > '{}'\nexec python3 '{}' ok lsp-marker-planted-4501\n",
            inside.display(),
            escape.display(),
            fake_server()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "app.py", "content": "ERROR\n"}),
    )
    .await;
    assert!(text(&result).starts_with("Created app.py"), "{result}");
    assert!(!inside.exists(), "the planted server ran");
    assert!(!escape.exists(), "the planted server ran");
}
