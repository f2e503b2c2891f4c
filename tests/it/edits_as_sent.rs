//! Edits as real models send them, over ACP: other agents' tool and argument names, broken
//! JSON, tolerant matches that say what they replaced, files changed behind the model's back,
//! patches in a heredoc on a CRLF file, and two edits of one file in one step.

use serde_json::json;

use crate::support::{call_tool, mock_llm, start};

#[tokio::test]
async fn other_agents_names_for_tools_and_arguments_run_as_tandems() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("a.py");
    std::fs::write(&path, "def f():\n    return 1\n").unwrap();
    let args = json!({"file_path": "a.py", "old_string": "return 1", "new_string": "return 2"});
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "str_replace_based_edit_tool",
        args,
    )
    .await;
    assert_eq!(result["content"], "Edit applied successfully.");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "def f():\n    return 2\n"
    );
    // The editor saw an edit, and the model's history names the tool as Tandem does.
    assert_eq!(agent.updates_of("tool_call")[0]["kind"], "edit");
    let history = &mock.requests()[1].body["messages"];
    let asked = history
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(asked["tool_calls"][0]["function"]["name"], "edit");

    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "Bash",
        json!({"command": "echo hi", "description": "say hi"}),
    )
    .await;
    assert!(
        result["content"].as_str().unwrap().contains("hi"),
        "{result}"
    );
}

#[tokio::test]
async fn broken_json_is_repaired_and_the_model_is_told() {
    let (mock, env, mut agent, session) = start("openai").await;
    mock.push(mock_llm::openai_tool_call(
        "call_1",
        "write",
        &[r#"{"filePath": "n.txt", "content": "hi\n",}"#],
    ));
    mock.push(mock_llm::openai_text(&["done"], "stop"));
    agent.prompt(&session, "write it").await;
    assert_eq!(
        std::fs::read_to_string(env.project.join("n.txt")).unwrap(),
        "hi\n"
    );
    let result = mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert!(
        result["content"].as_str().unwrap().starts_with(
            "(Your arguments were not valid JSON (trailing comma at line 1 column 41); a trailing comma was dropped, and the call ran with the result."
        ),
        "{result}"
    );
}

#[tokio::test]
async fn a_tolerant_edit_reports_the_lines_it_replaced() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("main.rs");
    std::fs::write(&path, "fn main() {\n        run();  \n}\n").unwrap();
    let args = json!({"filePath": "main.rs", "oldString": "fn main() {\n    run();\n}", "newString": "fn main() {\n    go();\n}"});
    let (_, result) = call_tool(&mock, &mut agent, &session, "edit", args).await;
    assert_eq!(
        result["content"],
        "Edit applied successfully.\n\noldString was not in the file as written; it was found ignoring each line's surrounding whitespace at lines 1-3. newString was written as given: the file's lines are not indented by one even amount more or less than oldString's, so it was not moved. Check its indentation. Those lines now read:\n1: fn main() {\n2:     go();\n3: }"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "fn main() {\n    go();\n}\n"
    );
}

#[tokio::test]
async fn write_over_an_unread_file_is_refused_until_it_is_read() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("notes.md");
    std::fs::write(&path, "the person's notes\n").unwrap();
    let write = json!({"filePath": "notes.md", "content": "replaced\n"});
    let (_, result) = call_tool(&mock, &mut agent, &session, "write", write.clone()).await;
    assert_eq!(
        result["content"],
        "notes.md already exists and you have not read it in this session. Read it first, so that nothing in it is lost, then write it (or change part of it with edit)."
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "the person's notes\n"
    );
    call_tool(
        &mock,
        &mut agent,
        &session,
        "read",
        json!({"filePath": "notes.md"}),
    )
    .await;
    let (_, result) = call_tool(&mock, &mut agent, &session, "write", write).await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Replaced notes.md"),
        "{result}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "replaced\n");
    // A new file needs no read.
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "write",
        json!({"filePath": "new.md", "content": "x"}),
    )
    .await;
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Created new.md"),
        "{result}"
    );
}

#[tokio::test]
async fn a_patch_in_a_heredoc_keeps_a_crlf_file_crlf() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("win.txt");
    std::fs::write(&path, "one\r\ntwo\r\nthree").unwrap();
    let patch = "<<'EOF'\n*** Begin Patch\n*** Update File: win.txt\n@@\n one\n-two\n+TWO\n+2\n*** End Patch\nEOF\n";
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "apply_patch",
        json!({"patch_text": patch}),
    )
    .await;
    assert_eq!(result["content"], "Patch applied:\nM win.txt");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "one\r\nTWO\r\n2\r\nthree\r\n"
    );
}

#[tokio::test]
async fn two_edits_of_one_file_in_one_step_both_land() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("f.txt");
    std::fs::write(&path, "top = 0\nmiddle = keep\nbottom = 0\n").unwrap();
    mock.push(mock_llm::openai_tool_calls(&[
        (
            "call_1",
            "edit",
            r#"{"filePath": "f.txt", "oldString": "top = 0", "newString": "top = 1"}"#,
        ),
        (
            "call_2",
            "edit",
            r#"{"filePath": "f.txt", "oldString": "bottom = 0", "newString": "bottom = 2"}"#,
        ),
    ]));
    mock.push(mock_llm::openai_text(&["done"], "stop"));
    agent.prompt(&session, "edit twice").await;
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "top = 1\nmiddle = keep\nbottom = 2\n"
    );
}

#[tokio::test]
async fn apply_patch_overwrites_as_codex_does_and_refuses_what_it_cannot_do() {
    let (mock, env, mut agent, session) = start("openai").await;
    let p = &env.project;
    std::fs::create_dir_all(p.join("dir")).unwrap();
    std::fs::write(p.join("dir/keep.txt"), "kept\n").unwrap();
    std::fs::write(p.join("dup.txt"), "old\n").unwrap();
    std::fs::write(p.join("from.txt"), "a\n").unwrap();
    std::fs::write(p.join("to.txt"), "there\n").unwrap();
    let patch = "*** Begin Patch\n*** Add File: dup.txt\n+new\n*** Update File: from.txt\n*** Move to: to.txt\n@@\n-a\n+b\n*** End Patch";
    let (_, result) = call_tool(
        &mock,
        &mut agent,
        &session,
        "apply_patch",
        json!({"patchText": patch}),
    )
    .await;
    assert_eq!(result["content"], "Patch applied:\nM dup.txt\nM to.txt");
    assert_eq!(std::fs::read_to_string(p.join("dup.txt")).unwrap(), "new\n");
    assert_eq!(std::fs::read_to_string(p.join("to.txt")).unwrap(), "b\n");
    assert!(!p.join("from.txt").exists());

    for (patch, error) in [
        (
            "*** Begin Patch\n*** Delete File: dir\n*** End Patch",
            "is a directory, not a file.",
        ),
        (
            "*** Begin Patch\n*** Update File: none.txt\n@@\n-a\n+b\n*** End Patch",
            "Cannot update",
        ),
        (
            "*** Begin Patch\n*** Delete File: none.txt\n*** End Patch",
            "Cannot delete",
        ),
        (
            "*** Begin Patch\n*** Frobnicate File: dup.txt\n*** End Patch",
            "Unexpected line in the patch",
        ),
    ] {
        let (_, result) = call_tool(
            &mock,
            &mut agent,
            &session,
            "apply_patch",
            json!({"patchText": patch}),
        )
        .await;
        assert!(
            result["content"].as_str().unwrap().contains(error),
            "{patch}: {result}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(p.join("dir/keep.txt")).unwrap(),
        "kept\n"
    );
}

/// One refused edit: the model is told why, and the file keeps every byte.
async fn refused(
    (mock, env, agent, session): (
        &crate::support::mock_llm::MockLlm,
        &crate::support::TestEnv,
        &mut crate::support::AcpProcess,
        &str,
    ),
    file: &str,
    before: &str,
    args: serde_json::Value,
    told: &str,
) {
    let path = env.project.join(file);
    std::fs::write(&path, before).unwrap();
    let (_, result) = call_tool(mock, agent, session, "edit", args).await;
    assert_eq!(result["content"], told, "{result}");
    assert_eq!(std::fs::read(&path).unwrap(), before.as_bytes(), "{file}");
}

#[tokio::test]
async fn loose_matches_that_would_delete_code_are_refused_and_change_nothing() {
    let (mock, env, mut agent, session) = start("openai").await;
    let ctx = (&mock, &env, &mut agent, session.as_str());
    let old = "function configure() {\n  const enabled = true\n}";
    let new = "function configure() {\n  const enabled = false\n}";
    let not_found = "Could not find oldString in configure.ts. It must match the file's text, including whitespace and indentation. Read the file again and copy the exact lines.";
    // A block anchor around four lines oldString never names.
    refused(
        ctx,
        "configure.ts",
        "function configure() {\n  keepImportantState()\n  removeAllUserData()\n  archiveBackups()\n  auditLog()\n}",
        json!({"filePath": "configure.ts", "oldString": old, "newString": new}),
        not_found,
    )
    .await;
    let ctx = (&mock, &env, &mut agent, session.as_str());
    // The same length, but the line between has nothing to do with oldString's.
    refused(
        ctx,
        "configure.ts",
        "function configure() {\n  removeAllUserData()\n}",
        json!({"filePath": "configure.ts", "oldString": old, "newString": new}),
        not_found,
    )
    .await;
    let ctx = (&mock, &env, &mut agent, session.as_str());
    // A match hundreds of bytes longer than oldString, replaceAll or not.
    let spaced = format!("a\n{}b\na\n{}b\n", " ".repeat(600), " ".repeat(600));
    refused(
        ctx,
        "spaced.txt",
        &spaced,
        json!({"filePath": "spaced.txt", "oldString": "a\nb", "newString": "changed", "replaceAll": true}),
        "Refusing the edit of spaced.txt: the closest match spans much more of the file than oldString, and would replace lines you did not write. Nothing was changed. Read the file again and give the full exact oldString for the lines you mean.",
    )
    .await;
    let ctx = (&mock, &env, &mut agent, session.as_str());
    // Two places ignoring whitespace: a third, looser match elsewhere is never taken instead.
    refused(
        ctx,
        "twice.txt",
        " a b \n c \nstop\n a b \n c \nstop\na\nb c\n",
        json!({"filePath": "twice.txt", "oldString": "a b\nc", "newString": "changed"}),
        "Found 2 matches for oldString in twice.txt. Include more surrounding lines to make it unique, or set replaceAll to change every one.",
    )
    .await;
    // The control: a middle line like oldString's is found, and the model told how.
    let path = env.project.join("near.ts");
    std::fs::write(&path, "function configure() {\n  const enabled = tru\n}\n").unwrap();
    let args = json!({"filePath": "near.ts", "oldString": old, "newString": new});
    let (_, result) = call_tool(&mock, &mut agent, &session, "edit", args).await;
    assert_eq!(
        result["content"],
        "Edit applied successfully.\n\noldString was not in the file as written; it was found by its first and last lines (lines between differed slightly) at lines 1-3. Those lines now read:\n1: function configure() {\n2:   const enabled = false\n3: }"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{new}\n"));
}

#[tokio::test]
async fn an_even_indentation_shift_is_made_and_said_an_uneven_one_is_not() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("m.rs");
    std::fs::write(&path, "mod m {\n    if a {\n        b();\n    }\n}\n").unwrap();
    let args = json!({"filePath": "m.rs", "oldString": "if a {\n    b();\n}", "newString": "if a {\n    c();\n}"});
    let (_, result) = call_tool(&mock, &mut agent, &session, "edit", args).await;
    assert_eq!(
        result["content"],
        "Edit applied successfully.\n\noldString was not in the file as written; it was found ignoring each line's surrounding whitespace at lines 2-4. newString was indented by 4 spaces more on each line, as the file's lines are. Those lines now read:\n1: mod m {\n2:     if a {\n3:         c();\n4:     }\n5: }"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "mod m {\n    if a {\n        c();\n    }\n}\n"
    );
}

#[tokio::test]
async fn a_patch_whose_heredoc_does_not_close_as_it_opened_changes_nothing() {
    let (mock, env, mut agent, session) = start("openai").await;
    let path = env.project.join("a.txt");
    std::fs::write(&path, "one\ntwo\n").unwrap();
    let body = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n";
    for (patch, told) in [
        (
            format!("<<'EOF\"\n{body}EOF\n"),
            "The patch opens a heredoc with mismatched quotes (`<<'EOF\"`): nothing was changed.",
        ),
        (
            format!("<<'EOF'\n{body}END\n"),
            "The patch opens a heredoc with `<<'EOF'` but does not end with `EOF`: nothing was changed.",
        ),
    ] {
        let (_, result) = call_tool(
            &mock,
            &mut agent,
            &session,
            "apply_patch",
            json!({"patch_text": patch}),
        )
        .await;
        assert!(
            result["content"].as_str().unwrap().contains(told),
            "{result}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"one\ntwo\n");
    }
}
