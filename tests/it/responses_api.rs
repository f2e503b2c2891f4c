//! OpenAI's Responses API through the binary against the mock's real event stream: a
//! multi-step tool turn whose second request carries the first step's encrypted reasoning
//! back, thoughts and text in the editor, usage on the answer, and the reasoning items kept in
//! the store (a new process sends them again).

use crate::support::mock_llm::{responses_text, responses_tool_call};
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

async fn start() -> (MockLlm, TestEnv, crate::support::AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "responses"));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

fn reasoning_item(summary: &str, encrypted: &str) -> Value {
    json!({"type": "reasoning", "id": format!("rs_{encrypted}"),
           "summary": [{"type": "summary_text", "text": summary}],
           "encrypted_content": encrypted})
}

#[tokio::test]
async fn a_tool_turn_carries_its_reasoning_to_the_next_step() {
    let (mock, env, mut agent, session) = start().await;
    std::fs::write(env.project.join("notes.md"), "x").unwrap();
    mock.push(responses_tool_call(
        Some(("Look first.", "ENC1")),
        "call_1",
        "glob",
        r#"{"pattern": "*.md"}"#,
    ));
    mock.push(responses_text(
        Some(("Done looking.", "ENC2")),
        &["Found ", "it."],
    ));
    let response = agent.prompt(&session, "find the notes").await;
    assert_eq!(
        response["result"],
        json!({"stopReason": "end_turn", "usage": {"totalTokens": 256, "inputTokens": 240,
               "outputTokens": 16, "thoughtTokens": 6, "cachedReadTokens": 40,
               "cachedWriteTokens": 0}})
    );

    let requests = mock.requests();
    assert_eq!(requests[0].path, "/v1/responses");
    let first = &requests[0].body;
    assert_eq!(first["store"], false);
    assert_eq!(first["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(first["prompt_cache_key"], session);
    assert!(
        first["instructions"]
            .as_str()
            .unwrap()
            .starts_with("You are Tandem")
    );
    assert_eq!(
        first["input"],
        json!([{"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "find the notes"}]}])
    );
    let second = requests[1].body["input"].as_array().unwrap().clone();
    assert_eq!(
        second[0], first["input"][0],
        "the second request extends the first"
    );
    assert_eq!(second[1], reasoning_item("Look first.", "ENC1"));
    assert_eq!(
        second[2],
        json!({"type": "function_call", "call_id": "call_1", "name": "glob",
               "arguments": "{\"pattern\":\"*.md\"}"})
    );
    assert_eq!(second[3]["type"], "function_call_output");
    assert_eq!(second[3]["call_id"], "call_1");
    assert!(second[3]["output"].as_str().unwrap().contains("notes.md"));

    let thoughts: Vec<Value> = agent
        .updates_of("agent_thought_chunk")
        .iter()
        .map(|u| u["content"]["text"].clone())
        .collect();
    assert_eq!(thoughts, [json!("Look first."), json!("Done looking.")]);
    assert_eq!(agent.agent_text(), "Found it.");

    // The items are stored: a new process sends both back with the next prompt.
    agent.shutdown().await;
    let mut again = env.spawn();
    again.initialize().await;
    again
        .request(
            "session/resume",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    mock.push(responses_text(None, &["ok"]));
    again.prompt(&session, "and now?").await;
    let third = mock.requests()[2].body["input"].as_array().unwrap().clone();
    assert_eq!(third[1], reasoning_item("Look first.", "ENC1"));
    assert_eq!(third[4], reasoning_item("Done looking.", "ENC2"));
    assert_eq!(
        third[5],
        json!({"type": "message", "role": "assistant",
               "content": [{"type": "output_text", "text": "Found it."}]})
    );
}
