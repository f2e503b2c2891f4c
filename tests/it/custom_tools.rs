//! Custom tools through the binary: one from the config and one from `.tandem/tool/*.json`,
//! offered with their own description and schema, run with the arguments as JSON on stdin,
//! a failing one's words given to the model, and a deny rule withholding one.

use serde_json::json;

use crate::support::mock_llm::{openai_text, openai_tool_calls};

#[tokio::test]
async fn custom_tools_run_with_json_on_stdin_and_follow_the_rules() {
    let (mock, env, mut agent, _) = crate::support::start_with(
        "openai",
        json!({
            "tool": {
                "word_count": {
                    "description": "Counts the words of `text`.",
                    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                    "command": ["python3", "-c", "import json, sys; print(len(json.load(sys.stdin)['text'].split()))"]
                },
                "broken": {"description": "Always fails.", "command": ["sh", "-c", "echo no luck >&2; exit 4"]},
                "hidden": {"description": "Denied.", "command": ["true"]}
            },
            "permission": {"hidden": "deny"}
        }),
    )
    .await;
    std::fs::create_dir_all(env.project.join(".tandem/tool")).unwrap();
    std::fs::write(
        env.project.join(".tandem/tool/shout.json"),
        r#"{"description": "Shouts its input.", "command": ["tr", "a-z", "A-Z"]}"#,
    )
    .unwrap();
    env.trust();
    let session = agent.new_session(&env.project).await;
    mock.push(openai_tool_calls(&[
        ("c1", "word_count", r#"{"text":"one two three"}"#),
        ("c2", "shout", r#"{"say":"hi"}"#),
        ("c3", "broken", "{}"),
    ]));
    mock.push(openai_text(&["done"], "stop"));
    agent.prompt(&session, "use them").await;

    let requests = mock.requests();
    let offered: Vec<&serde_json::Value> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    let find = |name: &str| {
        offered
            .iter()
            .find(|t| t["function"]["name"] == name)
            .cloned()
    };
    let word_count = find("word_count").expect("offered");
    assert_eq!(
        word_count["function"]["description"],
        "Counts the words of `text`."
    );
    assert_eq!(
        word_count["function"]["parameters"]["required"],
        json!(["text"])
    );
    assert!(find("shout").is_some(), "the file's tool is offered");
    assert!(find("hidden").is_none(), "a denied tool is not offered");

    let results: Vec<(String, String)> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(results[0], ("c1".to_owned(), "3\n".to_owned()));
    assert_eq!(results[1], ("c2".to_owned(), r#"{"SAY":"HI"}"#.to_owned()));
    assert_eq!(results[2].0, "c3");
    assert!(
        results[2]
            .1
            .contains("broken exited with exit status: 4:\nno luck"),
        "{:?}",
        results[2]
    );

    // `config check` names them, and says why a broken file is skipped.
    std::fs::write(
        env.project.join(".tandem/tool/bad.json"),
        r#"{"command": ["x"]}"#,
    )
    .unwrap();
    let output = env.command(&["config", "check"]).output().unwrap();
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        out.contains("\nCustom tools: word_count, broken, hidden, shout\n"),
        "{out}"
    );
    let bad = env.project.join(".tandem/tool/bad.json");
    assert!(
        out.contains(&format!(
            "  ! custom tool {}: missing field `description`",
            bad.display()
        )),
        "{out}"
    );
}
