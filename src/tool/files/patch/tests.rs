use super::*;
use crate::tool::files::endings::Normalized;

const PATCH: &str = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main\n fn main() {\n-    old();\n+    new();\n }\n*** End Patch\n";

/// `content` after the patch's one update, line endings kept as the tool keeps them.
fn updated(content: &str, patch: &str) -> Result<String, String> {
    let ops = parse(patch)?;
    let Some(FileOp::Update { hunks, .. }) = ops.into_iter().next() else {
        panic!("not an update")
    };
    let file = Normalized::new(content);
    let replacements = apply_hunks(&file.body, &hunks, "f")?;
    Ok(file.rebuild(content, &replacements))
}

fn update(body: &str) -> String {
    format!("*** Begin Patch\n*** Update File: f\n{body}*** End Patch\n")
}

#[test]
fn parses_every_operation() {
    let ops = parse(PATCH).unwrap();
    assert_eq!(
        ops[0],
        FileOp::Add {
            path: "new.txt".into(),
            content: "hello\nworld\n".into()
        }
    );
    assert_eq!(
        ops[1],
        FileOp::Delete {
            path: "old.txt".into()
        }
    );
    let FileOp::Update {
        path,
        move_to,
        hunks,
    } = &ops[2]
    else {
        panic!()
    };
    assert_eq!(
        (path.as_str(), move_to.as_deref()),
        ("src/a.rs", Some("src/b.rs"))
    );
    assert_eq!(hunks[0].context.as_deref(), Some("fn main"));
    assert_eq!(hunks[0].old, ["fn main() {", "    old();", "}"]);
    assert_eq!(hunks[0].new, ["fn main() {", "    new();", "}"]);
}

#[test]
fn padded_markers_a_heredoc_and_unified_headers_are_read() {
    let padded =
        "  *** Begin Patch  \n *** Update File: f \n  @@ fn a  \n-x\n+y\n  *** End Patch \n";
    assert_eq!(updated("fn a\nx\n", padded).unwrap(), "fn a\ny\n");
    for open in ["<<EOF", "<<'EOF'", "<<\"EOF\"", "apply_patch <<'EOF'"] {
        let wrapped = format!("{open}\n{}EOF\n", update("@@\n-x\n+y\n"));
        assert_eq!(updated("x\n", &wrapped).unwrap(), "y\n", "{open}");
    }
    let unified = update("@@ -1,2 +1,2 @@ fn a\n fn a\n-x\n+y\n");
    assert_eq!(parse(&unified).unwrap().len(), 1);
    assert_eq!(updated("fn a\nx\n", &unified).unwrap(), "fn a\ny\n");
}

#[test]
fn a_heredoc_whose_tags_or_quotes_do_not_match_is_refused() {
    let body = update("@@\n-x\n+y\n");
    for (open, close) in [
        ("<<'EOF\"", "EOF"),
        ("<<\"EOF'", "EOF"),
        ("<<'EOF", "EOF"),
        ("<<EOF", "END"),
    ] {
        let wrapped = format!("{open}\n{body}{close}\n");
        let error = updated("x\n", &wrapped).unwrap_err();
        assert!(
            error.contains("nothing was changed"),
            "{open} … {close}: {error}"
        );
    }
}

#[test]
fn context_lines_pick_between_repeated_blocks() {
    let content = "fn a() {\n    go();\n}\nfn b() {\n    go();\n}\n";
    let patch = update("@@ fn b() {\n-    go();\n+    stop();\n");
    assert_eq!(
        updated(content, &patch).unwrap(),
        "fn a() {\n    go();\n}\nfn b() {\n    stop();\n}\n"
    );
    let missing = updated(content, &update("@@ fn c() {\n-    go();\n+    x();\n")).unwrap_err();
    assert!(
        missing
            .contains("Hunk 1 of 1 for f does not fit: its `@@ fn c() {` line is not in the file"),
        "{missing}"
    );
}

#[test]
fn end_of_file_anchors_at_the_end() {
    let content = "x\nend\nx\nend\n";
    let patch = update("@@\n x\n-end\n+END\n*** End of File\n");
    assert_eq!(updated(content, &patch).unwrap(), "x\nend\nx\nEND\n");
}

#[test]
fn an_extra_blank_context_line_at_a_hunk_end_is_retried_without() {
    let patch = update("@@\n a\n-b\n+B\n \n");
    assert_eq!(updated("a\nb", &patch).unwrap(), "a\nB\n");
}

#[test]
fn typographic_punctuation_and_whitespace_slack() {
    let content = "say \u{201C}hi\u{201D} \u{2014} ok  \n";
    assert_eq!(
        updated(content, &update("@@\n-say \"hi\" - ok\n+bye\n")).unwrap(),
        "bye\n"
    );
}

#[test]
fn line_endings_stay_per_line_and_the_file_ends_with_a_newline() {
    assert_eq!(
        updated("a\r\nb\r\nc\r\n", &update("@@\n a\n-b\n+B\n+B2\n")).unwrap(),
        "a\r\nB\r\nB2\r\nc\r\n"
    );
    assert_eq!(
        updated("a\nb\r\nc\n", &update("@@\n-c\n+C\n")).unwrap(),
        "a\nb\r\nC\n"
    );
    assert_eq!(
        updated("one\ntwo", &update("@@\n-one\n+ONE\n")).unwrap(),
        "ONE\ntwo\n"
    );
    assert_eq!(
        updated("line1\nline2\n", &update("@@\n+added\n")).unwrap(),
        "line1\nline2\nadded\n"
    );
}

#[test]
fn codex_interleaved_chunks_and_an_embedded_carriage_return() {
    let patch = update("@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File\n");
    assert_eq!(
        updated("a\nb\nc\nd\ne\nf\n", &patch).unwrap(),
        "a\nB\nc\nd\nE\nf\ng\n"
    );
    let append = update("@@\n+BAZ\n*** End of File\n");
    assert_eq!(
        updated("foo\r\r\nbar\r\n", &append).unwrap(),
        "foo\r\r\nbar\r\nBAZ\r\n"
    );
    let first = update(
        "@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n",
    );
    assert_eq!(
        updated("line1\nline2\nline3\n", &first).unwrap(),
        "line1\nline2-replacement\nafter-context\nsecond-line\n"
    );
    let dash = update(
        "@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO\n",
    );
    let original = "import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n";
    assert_eq!(
        updated(original, &dash).unwrap(),
        "import asyncio  # HELLO\n"
    );
}

#[test]
fn a_failed_hunk_shows_the_nearest_lines() {
    let content = "fn a() {\n    one();\n}\nfn b() {\n    two();\n}\n";
    let error = updated(
        content,
        &update("@@\n fn b() {\n-    three();\n+    four();\n }\n"),
    )
    .unwrap_err();
    assert_eq!(
        error,
        "Hunk 1 of 1 for f does not fit: its lines are not in the file. The hunk looks for:\nfn b() {\n    three();\n}\nThe nearest lines in the file (2-6):\n2:     one();\n3: }\n4: fn b() {\n5:     two();\n6: }\nNothing was changed: fix this hunk (read the file if needed) and send the whole patch again."
    );
}

#[test]
fn malformed_patches_say_what_is_wrong() {
    assert!(parse("hello").unwrap_err().contains("*** Begin Patch"));
    assert!(
        parse("*** Begin Patch\n*** Add File: a\n+x\n")
            .unwrap_err()
            .contains("*** End Patch")
    );
    assert!(
        parse("*** Begin Patch\nfoo\n*** End Patch")
            .unwrap_err()
            .contains("Unexpected line")
    );
    assert!(
        parse("*** Begin Patch\n*** End Patch")
            .unwrap_err()
            .contains("no files")
    );
    assert!(parse(&update("")).unwrap_err().contains("has no changes"));
}
