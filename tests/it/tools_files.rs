//! The file tools through the binary: read, write, edit, apply_patch, glob, grep, list —
//! their output to the model, their errors, the bytes on disk and the diffs the editor gets.

use crate::support::{call_tool, call_updates};
use serde_json::json;

#[tokio::test]
async fn read_numbers_lines_windows_and_explains_failures() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    std::fs::write(env.project.join("notes.txt"), &text).unwrap();

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "notes.txt", "offset": 3, "limit": 2}),
    )
    .await;
    let path = env.project.join("notes.txt");
    assert_eq!(
        result["content"],
        format!(
            "<path>{}</path>\n<type>file</type>\n<content>\n3: line 3\n4: line 4\n\n(Showing lines 3-4 of 10. Use offset=5 to continue.)\n</content>",
            path.display()
        )
    );
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(done["status"], "completed");
    assert_eq!(done["title"], "notes.txt");
    assert_eq!(done["locations"], json!([{"path": path, "line": 3}]));

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "note.txt"}),
    )
    .await;
    let message = result["content"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "File not found: {}",
            env.project.join("note.txt").display()
        )),
        "{message}"
    );
    assert!(
        message.contains(&path.display().to_string()),
        "suggests the close name: {message}"
    );

    std::fs::write(env.project.join("blob.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "blob.bin"}),
    )
    .await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("is a binary file"),
        "{result}"
    );

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "."}),
    )
    .await;
    let listing = result["content"].as_str().unwrap();
    assert!(
        listing.contains("<type>directory</type>") && listing.contains("src/\ntandem.json"),
        "{listing}"
    );

    let (_, result) = call_tool(&mock, &mut agent, &session, "read", json!({"path": "x"})).await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("The read tool was called with invalid arguments"),
        "{result}"
    );
}

#[tokio::test]
async fn write_creates_the_file_and_shows_a_new_file_diff() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let (response, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "src/lib.rs", "content": "pub fn a() {}\n"}),
    )
    .await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(result["content"], "Created src/lib.rs (1 lines).");
    let path = env.project.join("src/lib.rs");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "pub fn a() {}\n");
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    // A new file's diff says so with `"oldText": null`: the schema reads an absent key alike,
    // but a real client (Toad) draws no diff at all without it.
    assert_eq!(
        done["content"][0],
        json!({"type": "diff", "path": path, "oldText": null, "newText": "pub fn a() {}\n"})
    );
    assert_eq!(agent.updates_of("tool_call")[0]["kind"], "edit");
}

#[tokio::test]
async fn edit_replaces_keeps_line_endings_and_reports_whole_file_diffs() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let path = env.project.join("main.rs");
    std::fs::write(&path, "fn main() {\r\n    old();\r\n}\r\n").unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "main.rs", "oldString": "    old();", "newString": "    new();"}),
    )
    .await;
    assert_eq!(result["content"], "Edit applied successfully.");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "fn main() {\r\n    new();\r\n}\r\n"
    );
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(
        done["content"][0],
        json!({"type": "diff", "path": path, "oldText": "fn main() {\r\n    old();\r\n}\r\n", "newText": "fn main() {\r\n    new();\r\n}\r\n"})
    );
    assert_eq!(done["locations"], json!([{"path": path, "line": 2}]));

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "edit",
        json!({"filePath": "main.rs", "oldString": "missing()", "newString": "x"}),
    )
    .await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Could not find oldString in main.rs"),
        "{result}"
    );
    // The person changes the file: the model's next edit is refused until it reads it again.
    std::fs::write(&path, "a();\na();\n").unwrap();
    let edit = json!({"filePath": "main.rs", "oldString": "a();", "newString": "b();"});
    let (_, result) = call_tool(&mock, &mut agent, &session, "edit", edit.clone()).await;
    assert_eq!(
        result["content"],
        "main.rs has changed since you last read it (edited by the user, a formatter or another session). Read it again, then make your change to what it holds now."
    );
    call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "main.rs"}),
    )
    .await;
    let (_, result) = call_tool(&mock, &mut agent, &session, "edit", edit).await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Found 2 matches for oldString"),
        "{result}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "a();\na();\n",
        "a failed edit writes nothing"
    );
    let (_, result) = call_tool(&mock, &mut agent, &session, "edit", json!({"filePath": "main.rs", "oldString": "a();", "newString": "b();", "replaceAll": true})).await;
    assert_eq!(result["content"], "Edit applied successfully.");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "b();\nb();\n");
}

#[tokio::test]
async fn apply_patch_adds_updates_moves_and_deletes_with_one_diff_per_file() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    std::fs::write(env.project.join("a.txt"), "one\ntwo\nthree\n").unwrap();
    std::fs::write(env.project.join("gone.txt"), "bye\n").unwrap();
    std::fs::write(env.project.join("old.txt"), "keep\nchange\n").unwrap();
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n*** Delete File: gone.txt\n*** Update File: old.txt\n*** Move to: moved.txt\n@@\n keep\n-change\n+changed\n*** End Patch";
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "apply_patch",
        json!({"patchText": patch}),
    )
    .await;
    assert_eq!(
        result["content"],
        "Patch applied:\nA new.txt\nM a.txt\nD gone.txt\nA moved.txt"
    );
    let read = |name: &str| std::fs::read_to_string(env.project.join(name)).ok();
    assert_eq!(read("new.txt").as_deref(), Some("hello\n"));
    assert_eq!(read("a.txt").as_deref(), Some("one\nTWO\nthree\n"));
    assert_eq!(read("gone.txt"), None);
    assert_eq!(read("old.txt"), None);
    assert_eq!(read("moved.txt").as_deref(), Some("keep\nchanged\n"));
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    let diffs: Vec<_> = done["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "diff")
        .cloned()
        .collect();
    assert_eq!(diffs.len(), 4);
    assert_eq!(
        diffs[1],
        json!({"type": "diff", "path": env.project.join("a.txt"), "oldText": "one\ntwo\nthree\n", "newText": "one\nTWO\nthree\n"})
    );

    let (_, result) = call_tool(&mock, &mut agent, &session, "apply_patch", json!({"patchText": "*** Begin Patch\n*** Update File: a.txt\n@@\n-nope\n+x\n*** End Patch"})).await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Hunk 1 of 1 for a.txt does not fit: its lines are not in the file."),
        "{result}"
    );
}

#[tokio::test]
async fn glob_grep_and_list_search_the_project_respecting_gitignore() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    std::process::Command::new("git")
        .arg("init")
        .arg("-q")
        .current_dir(&env.project)
        .status()
        .unwrap();
    std::fs::write(env.project.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::create_dir_all(env.project.join("ignored")).unwrap();
    std::fs::write(env.project.join("ignored/skip.rs"), "fn needle() {}\n").unwrap();
    std::fs::write(
        env.project.join("src/a.rs"),
        "fn needle() {}\nfn other() {}\n",
    )
    .unwrap();
    std::fs::write(env.project.join("src/b.py"), "needle = 1\n").unwrap();

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "glob",
        json!({"pattern": "**/*.rs"}),
    )
    .await;
    assert_eq!(
        result["content"],
        env.project.join("src/a.rs").display().to_string()
    );
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "grep",
        json!({"pattern": "needle", "include": "*.rs"}),
    )
    .await;
    assert_eq!(
        result["content"],
        format!(
            "Found 1 matches\n\n{}:\n  Line 1: fn needle() {{}}",
            env.project.join("src/a.rs").display()
        )
    );
    let done = call_updates(&agent, "call_2").last().unwrap().clone();
    assert_eq!(
        done["locations"],
        json!([{"path": env.project.join("src/a.rs"), "line": 1}])
    );
    let (_, result) = call_tool(&mock, &mut agent, &session, "grep", json!({"pattern": "("})).await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Invalid regex `(`"),
        "{result}"
    );
    let (_, result) = call_tool(&mock, &mut agent, &session, "list", json!({})).await;
    let tree = result["content"].as_str().unwrap();
    assert!(tree.contains("  src/\n    a.rs\n    b.py\n"), "{tree}");
    assert!(!tree.contains("skip.rs"), "{tree}");
}

#[tokio::test]
async fn glob_caps_at_100_newest_first() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    for i in 0..120 {
        std::fs::write(env.project.join(format!("src/f{i:03}.txt")), "x").unwrap();
    }
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "glob",
        json!({"pattern": "*.txt", "path": "src"}),
    )
    .await;
    let text = result["content"].as_str().unwrap();
    assert_eq!(text.lines().filter(|l| l.ends_with(".txt")).count(), 100);
    assert!(text.ends_with("(Results are truncated: showing the 100 newest of 120 files. Use a more specific path or pattern.)"), "{text}");
}

#[tokio::test]
async fn images_are_attached_for_the_model_and_the_editor() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let png = [0x89u8, b'P', b'N', b'G', 0, 1, 2, 3];
    std::fs::write(env.project.join("shot.png"), png).unwrap();
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "shot.png"}),
    )
    .await;
    // OpenAI tool messages are text: the image follows as a user message.
    assert_eq!(result["role"], "user");
    assert_eq!(
        result["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORwABAgM="}})
    );
    let done = call_updates(&agent, "call_0").last().unwrap().clone();
    assert_eq!(
        done["content"][1],
        json!({"type": "content", "content": {"type": "image", "data": "iVBORwABAgM=", "mimeType": "image/png"}})
    );

    let (mock, env, mut agent, session) = crate::support::start("anthropic").await;
    std::fs::write(env.project.join("shot.png"), png).unwrap();
    mock.push(crate::support::mock_llm::anthropic_tool_use(
        "toolu_img",
        "read",
        &[&json!({"filePath": "shot.png"}).to_string()],
    ));
    mock.push(crate::support::mock_llm::anthropic_text(
        "t",
        &["seen"],
        "end_turn",
    ));
    agent.prompt(&session, "look").await;
    let result = mock.requests()[1].body["messages"][2]["content"][0].clone();
    assert_eq!(result["type"], "tool_result");
    assert_eq!(
        result["content"][1],
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORwABAgM="}})
    );
}

#[tokio::test]
async fn a_new_file_in_new_folders_is_written_with_or_without_the_editor() {
    // Without the editor's fs capability, Tandem writes the disk itself.
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "new/deeper/a.txt", "content": "one\n"}),
    )
    .await;
    assert_eq!(result["content"], "Created new/deeper/a.txt (1 lines).");
    assert_eq!(
        std::fs::read_to_string(env.project.join("new/deeper/a.txt")).unwrap(),
        "one\n"
    );

    // With it, the editor writes (and writes only into folders that exist, as editors do).
    let mut agent = env.spawn();
    agent.editor = Some(Default::default());
    agent
        .initialize_with(json!({"fs": {"readTextFile": true, "writeTextFile": true}}))
        .await;
    let session = agent.new_session(&env.project).await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "other/nested/b.txt", "content": "two\n"}),
    )
    .await;
    let path = env.project.join("other/nested/b.txt");
    assert_eq!(result["content"], "Created other/nested/b.txt (1 lines).");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
    assert_eq!(
        agent.editor.as_ref().unwrap().writes,
        [path],
        "through the editor"
    );
}

#[tokio::test]
async fn a_wrong_argument_is_named_for_the_model() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "README.md", "offset": "ten"}),
    )
    .await;
    assert_eq!(
        result["content"],
        "The read tool was called with invalid arguments: `offset`: invalid type: string \"ten\", expected usize. Call it again with arguments matching its parameters."
    );
}
