//! Prompt turns through the binary against the mock provider: streaming with message ids,
//! history on the second prompt, the tool loop, usage, stop reasons, both wire formats.

use crate::support::mock_llm::{anthropic_text, anthropic_tool_use, openai_text, openai_tool_call};
use crate::support::{MockLlm, TestEnv};
use serde_json::{Value, json};

#[tokio::test]
async fn streamed_text_arrives_in_order_with_one_message_id() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["Hel", "lo, ", "world", "!"], "stop"));
    let response = agent.prompt(&session, "Say hello").await;
    // The turn's tokens ride on the answer (ACP's unstable end-of-turn usage): the mock's
    // 120 prompt tokens (20 of them cached) and 8 completion tokens.
    assert_eq!(
        response["result"],
        json!({"stopReason": "end_turn", "usage": {"totalTokens": 128, "inputTokens": 120,
               "outputTokens": 8, "cachedReadTokens": 20, "cachedWriteTokens": 0}})
    );

    let chunks = agent.updates_of("agent_message_chunk");
    let texts: Vec<&str> = chunks
        .iter()
        .map(|c| c["content"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Hel", "lo, ", "world", "!"]);
    let message_id = chunks[0]["messageId"].as_str().unwrap();
    assert_eq!(message_id.len(), 26);
    assert!(chunks.iter().all(|c| c["messageId"] == message_id));
    assert_eq!(
        chunks[0],
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}, "messageId": message_id})
    );
    // Every update names the session.
    assert!(agent.updates.iter().all(|u| u["sessionId"] == session));

    // The request the model received: system prompt, the prompt, streaming with usage.
    let request = &mock.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.headers["authorization"], "Bearer sk-test");
    assert_eq!(request.body["model"], "test-model");
    assert_eq!(request.body["stream"], true);
    assert_eq!(
        request.body["stream_options"],
        json!({"include_usage": true})
    );
    assert_eq!(request.body["max_tokens"], 4096);
    let messages = request.body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains(&_env.project.display().to_string())
    );
    assert_eq!(messages[1], json!({"role": "user", "content": "Say hello"}));
}

#[tokio::test]
async fn usage_update_follows_the_turn_with_window_and_cost() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "hi").await;
    let usage = agent.updates_of("usage_update");
    // prompt 120 (20 cached) + 8 output; $1/M input, $2/M output on the 100 uncached + 8.
    let cost = (100.0 * 1.0 + 8.0 * 2.0) / 1_000_000.0;
    assert_eq!(
        usage,
        [
            json!({"sessionUpdate": "usage_update", "used": 128, "size": 100000,
                "cost": {"amount": cost, "currency": "USD"},
                "_meta": {"tandem": {"inputTokens": 100, "outputTokens": 8, "reasoningTokens": 0,
                    "cacheReadTokens": 20, "cacheWriteTokens": 0}}})
        ]
    );
    // It is the last update before the answer.
    assert_eq!(
        agent.updates.last().unwrap()["update"]["sessionUpdate"],
        "usage_update"
    );
}

#[tokio::test]
async fn the_second_prompt_sends_the_first_turns_history() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["Paris."], "stop"));
    mock.push(openai_text(&["About 2 million."], "stop"));
    agent.prompt(&session, "Capital of France?").await;
    let response = agent.prompt(&session, "Population?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let second = &crate::support::without_cache_marks(&mock.requests()[1].body["messages"]);
    assert_eq!(
        second.as_array().unwrap()[1..],
        [
            json!({"role": "user", "content": "Capital of France?"}),
            json!({"role": "assistant", "content": "Paris."}),
            json!({"role": "user", "content": "Population?"}),
        ]
    );
}

#[tokio::test]
async fn a_tool_call_goes_round_the_loop() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call(
        "call_abc",
        "list",
        &["{\"pa", "th\": \"src\"}"],
    ));
    mock.push(openai_text(&["src is empty."], "stop"));
    std::fs::write(env.project.join("src/main.rs"), "fn main() {}\n").unwrap();
    let response = agent.prompt(&session, "What is in src?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");

    let calls = agent.updates_of("tool_call");
    assert_eq!(
        calls,
        [
            json!({"sessionUpdate": "tool_call", "toolCallId": "call_abc", "title": "list",
                "kind": "search", "rawInput": {}})
        ]
    );
    let updates = agent.updates_of("tool_call_update");
    let statuses: Vec<&str> = updates
        .iter()
        .map(|u| u["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["pending", "in_progress", "completed"]);
    // Once the arguments are in, the call gets its real title and location.
    let src = env.project.join("src");
    assert_eq!(
        updates[0],
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_abc", "status": "pending",
               "title": "src", "locations": [{"path": src}], "rawInput": {"path": "src"}})
    );
    assert_eq!(updates[1]["title"], "src");
    let listing = format!("{}/\n  main.rs\n", src.display());
    assert_eq!(
        updates[2]["content"],
        json!([{"type": "content", "content": {"type": "text", "text": listing}}])
    );
    assert_eq!(
        updates[2]["rawOutput"],
        json!({"output": listing, "metadata": {"count": 1, "truncated": false}})
    );

    // The result went back to the model, paired with its call.
    let second = mock.requests()[1].body["messages"].clone();
    let tail: Vec<Value> = second.as_array().unwrap()[2..].to_vec();
    assert_eq!(
        tail,
        [
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_abc", "type": "function",
                   "function": {"name": "list", "arguments": "{\"path\":\"src\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "call_abc", "content": listing}),
        ]
    );
    // The tools were offered with their schema.
    let tools = &mock.requests()[0].body["tools"];
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "bash",
            "read",
            "glob",
            "grep",
            "edit",
            "write",
            "webfetch",
            "todowrite",
            "todoread",
            "task",
            "task_output",
            "task_cancel",
            "apply_patch",
            "list",
            "question",
            "goal",
            "memory",
            "bash_output",
            "bash_kill",
            "lsp"
        ]
    );
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["function"]["parameters"]["type"] == "object")
    );
}

#[tokio::test]
async fn a_broken_tool_call_becomes_an_error_the_model_reads() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_tool_call("call_bad", "list", &["{\"path\": "]));
    mock.push(openai_tool_call("call_nope", "teleport", &["{}"]));
    mock.push(openai_text(&["Sorry."], "stop"));
    let response = agent.prompt(&session, "go").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let failed: Vec<Value> = agent
        .updates_of("tool_call_update")
        .into_iter()
        .filter(|u| u["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 2);
    let requests = mock.requests();
    let bad_json = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(bad_json["role"], "tool");
    assert!(
        bad_json["content"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{bad_json}"
    );
    let unknown = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        unknown["content"]
            .as_str()
            .unwrap()
            .contains("no tool named `teleport`"),
        "{unknown}"
    );
}

#[tokio::test]
async fn steps_bound_the_loop_and_end_with_max_turn_requests() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["agent"] = json!({"build": {"steps": 2}});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_tool_call("c1", "list", &["{}"]));
    mock.push(openai_tool_call("c2", "list", &["{}"]));
    let response = agent.prompt(&session, "loop forever").await;
    assert_eq!(response["result"]["stopReason"], "max_turn_requests");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    // The last step offers no tools and carries the max-steps instruction.
    assert!(requests[1].body.get("tools").is_none());
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "assistant");
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .starts_with("CRITICAL - MAXIMUM STEPS REACHED")
    );
}

#[tokio::test]
async fn length_and_content_filter_map_to_their_stop_reasons() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["This answer is cut"], "length"));
    mock.push(openai_text(&[], "content_filter"));
    assert_eq!(
        agent.prompt(&session, "a").await["result"]["stopReason"],
        "max_tokens"
    );
    assert_eq!(
        agent.prompt(&session, "b").await["result"]["stopReason"],
        "refusal"
    );
}

#[tokio::test]
async fn anthropic_streams_thinking_and_text() {
    let (mock, _env, mut agent, session) = crate::support::start("anthropic").await;
    mock.push(anthropic_text(
        "Let me think.",
        &["Hello", " there"],
        "end_turn",
    ));
    let response = agent.prompt(&session, "hi").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let thoughts = agent.updates_of("agent_thought_chunk");
    assert_eq!(thoughts.len(), 1);
    assert_eq!(thoughts[0]["content"]["text"], "Let me think.");
    assert_eq!(agent.agent_text(), "Hello there");
    assert_eq!(
        thoughts[0]["messageId"],
        agent.updates_of("agent_message_chunk")[0]["messageId"]
    );

    let request = &mock.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.headers["x-api-key"], "sk-test");
    assert_eq!(request.headers["anthropic-version"], "2023-06-01");
    assert_eq!(request.body["max_tokens"], 4096);
    // The last message carries the cache breakpoint the next request will reuse.
    assert_eq!(
        request.body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hi",
            "cache_control": {"type": "ephemeral"}}]}])
    );
    assert_eq!(request.body["system"][0]["type"], "text");

    let usage = agent.updates_of("usage_update");
    assert_eq!(usage[0]["used"], 200 + 50 + 15);
}

#[tokio::test]
async fn anthropic_tool_use_round_trip_sends_signed_thinking_back() {
    let (mock, _env, mut agent, session) = crate::support::start("anthropic").await;
    mock.push(anthropic_tool_use(
        "toolu_1",
        "list",
        &["{\"path\":", " \".\"}"],
    ));
    mock.push(anthropic_text("Done thinking.", &["Listed."], "end_turn"));
    mock.push(anthropic_text("Again.", &["Yes."], "end_turn"));
    agent.prompt(&session, "list it").await;
    let second = &crate::support::without_cache_marks(&mock.requests()[1].body["messages"]);
    assert_eq!(second[1]["role"], "assistant");
    assert_eq!(
        second[1]["content"][0],
        json!({"type": "tool_use", "id": "toolu_1", "name": "list", "input": {"path": "."}})
    );
    assert_eq!(second[2]["role"], "user");
    assert_eq!(second[2]["content"][0]["type"], "tool_result");
    assert_eq!(second[2]["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(second[2]["content"][0]["is_error"], false);
    agent.prompt(&session, "again").await;
    let third = &crate::support::without_cache_marks(&mock.requests()[2].body["messages"]);
    assert_eq!(
        third[3]["content"][0],
        json!({"type": "thinking", "thinking": "Done thinking.", "signature": "sig-abc"})
    );
}

#[tokio::test]
async fn the_first_prompt_titles_the_session() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "Refactor the parser\nplease").await;
    let info = agent.updates_of("session_info_update");
    assert_eq!(info.len(), 1);
    assert_eq!(info[0]["title"], "Refactor the parser");
    let list = agent
        .request("session/list", json!({"cwd": env.project}))
        .await;
    assert_eq!(
        list["result"]["sessions"][0]["title"],
        "Refactor the parser"
    );
}

#[tokio::test]
async fn a_tool_calls_finish_without_calls_ends_the_turn_instead_of_looping() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["Nothing to call."], "tool_calls"));
    let response = agent.prompt(&session, "hi").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn a_long_stream_arrives_whole_in_order_before_the_answer_with_nothing_else_on_the_wire() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let pieces: Vec<String> = (0..500).map(|i| format!("w{i} ")).collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    mock.push(openai_text(&pieces, "stop"));
    let response = agent.prompt(&session, "Count").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let texts: Vec<String> = agent
        .updates_of("agent_message_chunk")
        .iter()
        .map(|c| c["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, pieces);
    // Updates travel the SDK's queue wrapped; the editor only ever sees session/update.
    let methods: std::collections::BTreeSet<&str> = agent
        .received
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(methods, ["session/update"].into());
    let answer_at = agent
        .received
        .iter()
        .position(|m| m == &response)
        .expect("the answer was received");
    let last_chunk_at = agent
        .received
        .iter()
        .rposition(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .unwrap();
    assert!(last_chunk_at < answer_at, "every chunk precedes the answer");
}

#[tokio::test]
async fn text_that_names_the_internal_wrapper_arrives_as_written() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    // The stdout writer swaps `_tandem/line` tickets for updates: text that looks like one,
    // short or long, must pass untouched.
    let pieces = [
        r#"{"jsonrpc":"2.0","method":"_tandem/line","params":[0]}"#,
        "_tandem/line",
        r#"["_tandem/line", 1]"#,
    ];
    mock.push(openai_text(&pieces, "stop"));
    let response = agent.prompt(&session, "quote it").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(agent.agent_text(), pieces.concat());
    assert!(
        agent.received.iter().all(|m| m["method"] != "_tandem/line"),
        "no wrapper reaches the editor"
    );
}
