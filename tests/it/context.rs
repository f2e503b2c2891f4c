//! Long sessions through the real binary: the overflow threshold, compaction on a full window
//! and on a provider's refusal, what the compaction request and the next request hold, pruning,
//! `/compact` in both editor styles, and the replay of a compacted session.

use crate::support::mock_llm::{openai_text, openai_tool_calls, with_usage};
use crate::support::{MockLlm, MockResponse, TestEnv};
use serde_json::{Value, json};

/// The mock model's window: context 100,000, output 4,096 → usable 95,904.
const USABLE: u64 = 100_000 - 4_096;

fn summary_answer(text: &str) -> MockResponse {
    openai_text(&[text], "stop")
}

fn system_of(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn is_compaction(body: &Value) -> bool {
    system_of(body).contains("anchored summary")
}

/// `(role, text)` of each message after the system prompt, tool calls named by their tool.
fn shape(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|m| {
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Null => m["tool_calls"][0]["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                other => other.to_string(),
            };
            (m["role"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

#[tokio::test]
async fn the_window_is_full_exactly_at_the_formula_and_not_one_token_below() {
    for (used, compacts) in [(USABLE, true), (USABLE - 1, false)] {
        let (mock, _env, mut agent, session) = crate::support::start("openai").await;
        // 8 output tokens; the rest is input.
        mock.push(with_usage(
            openai_text(&["First answer."], "stop"),
            used - 8,
            8,
        ));
        agent.prompt(&session, "first question").await;
        if compacts {
            mock.push(summary_answer("## Goal\n- answer questions"));
        }
        mock.push(openai_text(&["Second answer."], "stop"));
        let response = agent.prompt(&session, "second question").await;
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        let requests = mock.requests();
        assert_eq!(requests.len(), if compacts { 3 } else { 2 }, "used {used}");
        assert_eq!(is_compaction(&requests[1].body), compacts, "used {used}");
        let last = &requests.last().unwrap().body;
        if compacts {
            // Only the summary, then the message that had not been answered yet.
            assert_eq!(
                shape(last),
                [
                    (
                        "user".into(),
                        "What have we done so far in this conversation?".into()
                    ),
                    ("assistant".into(), "## Goal\n- answer questions".into()),
                    ("user".into(), "second question".into()),
                ]
            );
            let text = agent.agent_text();
            assert!(text.contains("Context compacted: about"), "{text}");
        } else {
            assert_eq!(shape(last).len(), 3);
        }
    }
}

#[tokio::test]
async fn a_provider_overflow_compacts_and_the_same_turn_goes_on() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["Earlier answer."], "stop"));
    agent.prompt(&session, "earlier question").await;
    mock.push(MockResponse::status(
        400,
        r#"{"error":{"message":"This model's maximum context length is 100000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
    ));
    mock.push(summary_answer("## Goal\n- keep going"));
    mock.push(openai_text(&["Done after compacting."], "stop"));
    let response = agent.prompt(&session, "a big question").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 4);
    assert!(is_compaction(&requests[2].body));
    // The interrupted message is replayed after the summary; no synthetic "continue".
    assert_eq!(
        shape(&requests[3].body),
        [
            (
                "user".into(),
                "What have we done so far in this conversation?".into()
            ),
            ("assistant".into(), "## Goal\n- keep going".into()),
            ("user".into(), "a big question".into()),
        ]
    );
    assert!(agent.agent_text().ends_with("Done after compacting."));
}

#[tokio::test]
async fn a_compaction_that_overflows_itself_ends_the_turn_with_a_clear_error() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["Earlier answer."], "stop"));
    agent.prompt(&session, "earlier question").await;
    let overflow = r#"{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
    mock.push(MockResponse::status(400, overflow));
    mock.push(MockResponse::status(400, overflow));
    let response = agent.prompt(&session, "a big question").await;
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("too long for the model's context window, even to summarise it"),
        "{response}"
    );
    assert_eq!(mock.requests().len(), 3);
    // The process keeps serving.
    mock.push(openai_text(&["Still here."], "stop"));
    let response = agent.prompt(&session, "hello?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
}

#[tokio::test]
async fn the_compaction_request_and_the_next_one_hold_what_they_should() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    // A file whose read output (≈ 45,000 characters) cannot be in the kept tail.
    let line = "x".repeat(59);
    std::fs::write(env.project.join("big.txt"), format!("{line}\n").repeat(750)).unwrap();
    mock.push(openai_tool_calls(&[(
        "call_1",
        "read",
        r#"{"filePath":"big.txt"}"#,
    )]));
    mock.push(with_usage(openai_text(&["Read it."], "stop"), USABLE, 10));
    agent.prompt(&session, "read big.txt").await;

    mock.push(summary_answer("## Goal\n- first summary"));
    mock.push(with_usage(openai_text(&["Next done."], "stop"), USABLE, 10));
    agent.prompt(&session, "next").await;
    let requests = mock.requests();
    let compaction = &requests[2].body;
    assert!(is_compaction(compaction));
    assert!(
        compaction.get("tools").is_none(),
        "the compaction agent has no tools"
    );
    let sent = compaction["messages"].to_string();
    assert!(
        sent.contains("[Tool output truncated for compaction: omitted"),
        "{sent}"
    );
    let closing = shape(compaction).last().unwrap().1.clone();
    for section in [
        "Create a new anchored summary",
        "## Goal",
        "## Constraints & Preferences",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
        "## Relevant Files",
    ] {
        assert!(closing.contains(section), "{section} in {closing}");
    }
    // Summary, the kept tail (the last answer of the first turn), then the new message.
    assert_eq!(
        shape(&requests[3].body),
        [
            (
                "user".into(),
                "What have we done so far in this conversation?".into()
            ),
            ("assistant".into(), "## Goal\n- first summary".into()),
            ("assistant".into(), "Read it.".into()),
            ("user".into(), "next".into()),
        ]
    );

    // The next compaction updates the previous summary.
    mock.push(summary_answer("## Goal\n- second summary"));
    mock.push(openai_text(&["Third done."], "stop"));
    agent.prompt(&session, "third").await;
    let requests = mock.requests();
    let second = &requests[4].body;
    assert!(is_compaction(second));
    let closing = shape(second).last().unwrap().1.clone();
    assert!(closing.contains("Update the anchored summary"), "{closing}");
    assert!(
        closing.contains("<previous-summary>\n## Goal\n- first summary\n</previous-summary>"),
        "{closing}"
    );
    assert!(
        !second["messages"]
            .to_string()
            .contains("What have we done so far")
    );

    // The store keeps everything: a reload replays every turn and both compactions.
    drop(agent);
    let mut agent = env.spawn();
    agent.initialize().await;
    agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let users: Vec<String> = agent
        .updates_of("user_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(users, ["read big.txt", "next", "third"]);
    let text = agent.agent_text();
    assert_eq!(text.matches("Context compacted").count(), 2, "{text}");
    let read = &agent.updates_of("tool_call")[0];
    assert!(
        read["content"].to_string().len() > 40_000,
        "the full output replays"
    );
}

#[tokio::test]
async fn old_tool_outputs_are_pruned_from_requests_but_kept_in_the_store() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    // Five reads of ≈ 50 KB (≈ 12,500 tokens each): 62,500 tokens of output in one turn.
    let line = "y".repeat(99);
    for n in 0..5 {
        std::fs::write(
            env.project.join(format!("f{n}.txt")),
            format!("{line}\n").repeat(500),
        )
        .unwrap();
    }
    let calls: Vec<(String, String)> = (0..5)
        .map(|n| (format!("call_{n}"), format!(r#"{{"filePath":"f{n}.txt"}}"#)))
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "read", args.as_str()))
        .collect();
    mock.push(openai_tool_calls(&calls));
    mock.push(openai_text(&["Read all five."], "stop"));
    agent.prompt(&session, "read the five files").await;
    for turn in ["second", "third"] {
        mock.push(openai_text(&["ok"], "stop"));
        agent.prompt(&session, turn).await;
        // Nothing is pruned while the reads are among the last two turns.
        let last = mock.requests().last().unwrap().body["messages"].to_string();
        assert!(
            !last.contains("[Old tool result content cleared]"),
            "{turn}"
        );
    }
    mock.push(openai_text(&["ok"], "stop"));
    agent.prompt(&session, "fourth").await;
    let body = mock.requests().last().unwrap().body.clone();
    let results: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    // Beyond the newest 40,000 tokens: the two oldest outputs (25,000 > 20,000).
    assert_eq!(results.len(), 5);
    assert_eq!(results[0], "[Old tool result content cleared]");
    assert_eq!(results[1], "[Old tool result content cleared]");
    assert!(results[2].len() > 40_000);

    // The stored output stays: a reload shows every read in full.
    drop(agent);
    let mut agent = env.spawn();
    agent.initialize().await;
    agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    let reads = agent.updates_of("tool_call");
    assert_eq!(reads.len(), 5);
    assert!(
        reads
            .iter()
            .all(|r| r["content"].to_string().len() > 40_000)
    );
}

#[tokio::test]
async fn pruning_can_be_turned_off() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["compaction"] = json!({"prune": false});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let line = "y".repeat(99);
    std::fs::write(env.project.join("f.txt"), format!("{line}\n").repeat(500)).unwrap();
    let calls: Vec<(String, &str)> = (0..5)
        .map(|n| (format!("c{n}"), r#"{"filePath":"f.txt"}"#))
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, a)| (id.as_str(), "read", *a))
        .collect();
    mock.push(openai_tool_calls(&calls));
    mock.push(openai_text(&["Read."], "stop"));
    agent.prompt(&session, "read").await;
    for turn in ["2", "3", "4"] {
        mock.push(openai_text(&["ok"], "stop"));
        agent.prompt(&session, turn).await;
    }
    let last = mock.requests().last().unwrap().body["messages"].to_string();
    assert!(!last.contains("[Old tool result content cleared]"));
}

#[tokio::test]
async fn slash_compact_shows_as_a_message_or_as_compaction_updates() {
    // An editor without the capability: an agent message.
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(openai_text(&["Answer one."], "stop"));
    agent.prompt(&session, "question one").await;
    mock.push(summary_answer("## Goal\n- manual"));
    let response = agent.prompt(&session, "/compact").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(mock.requests().len(), 2);
    assert!(is_compaction(&mock.requests()[1].body));
    assert!(agent.agent_text().contains("Context compacted: about"));
    assert!(agent.updates_of("compaction_update").is_empty());

    // An editor with `session.compaction`: in progress, then completed with the summary.
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent
        .initialize_with(
            json!({"fs": {"readTextFile": false, "writeTextFile": false},
            "terminal": false, "session": {"compaction": {}}}),
        )
        .await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_text(&["Answer one."], "stop"));
    agent.prompt(&session, "question one").await;
    mock.push(summary_answer("## Goal\n- manual"));
    agent.prompt(&session, "/compact").await;
    let updates = agent.updates_of("compaction_update");
    assert_eq!(updates.len(), 2, "{updates:?}");
    assert_eq!(updates[0]["status"], "in_progress");
    assert_eq!(updates[1]["status"], "completed");
    assert_eq!(updates[0]["compactionId"], updates[1]["compactionId"]);
    assert_eq!(
        updates[1]["summary"],
        json!([{"type": "text", "text": "## Goal\n- manual"}])
    );
    assert!(
        updates[1]["_meta"]["tandem"]["tokensBefore"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(!agent.agent_text().contains("Context compacted"));
    // Then the meter: the estimate of what the context holds now.
    let usage = agent.updates_of("usage_update");
    let after = updates[1]["_meta"]["tandem"]["tokensAfter"]
        .as_u64()
        .unwrap();
    assert_eq!(usage.last().unwrap()["used"], after);

    // `/compact` with nothing before it says so and asks no model.
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    let response = agent.prompt(&session, "/compact").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert!(mock.requests().is_empty());
    assert!(agent.agent_text().starts_with("Nothing to compact yet"));
}

#[tokio::test]
async fn automatic_compaction_can_be_turned_off() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["compaction"] = json!({"auto": false});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(with_usage(openai_text(&["Full."], "stop"), USABLE, 10));
    agent.prompt(&session, "one").await;
    mock.push(openai_text(&["Still no compaction."], "stop"));
    agent.prompt(&session, "two").await;
    assert_eq!(mock.requests().len(), 2);
    assert!(!is_compaction(&mock.requests()[1].body));
}

#[tokio::test]
async fn a_full_window_mid_turn_compacts_and_the_work_goes_on_in_the_same_prompt() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    // The tool step fills the window; the next step runs after a compaction.
    let full = with_usage(
        openai_tool_calls(&[("call_1", "list", "{}")]),
        USABLE - 12,
        12,
    );
    mock.push(full);
    mock.push(summary_answer("## Goal\n- list files"));
    mock.push(openai_text(&["Listed."], "stop"));
    let response = agent.prompt(&session, "list the files").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    assert!(is_compaction(&requests[1].body));
    let after = shape(&requests[2].body);
    assert_eq!(
        after.last().unwrap(),
        &(
            "user".to_owned(),
            "Continue if you have next steps, or stop and ask for clarification if you are \
             unsure how to proceed."
                .to_owned()
        )
    );
    // The synthetic message is not the person's: it is not replayed as theirs.
    assert_eq!(agent.updates_of("user_message_chunk").len(), 0);
}

#[tokio::test]
async fn an_answer_cut_at_the_end_of_the_window_compacts_and_continues() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    mock.push(with_usage(
        openai_text(&["A long answer that"], "length"),
        USABLE - 100,
        100,
    ));
    mock.push(summary_answer("## Goal\n- long answer"));
    mock.push(openai_text(&["The rest."], "stop"));
    let response = agent.prompt(&session, "write a lot").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(mock.requests().len(), 3);
    assert!(is_compaction(&mock.requests()[1].body));
    // Cut with room left is still `max_tokens`.
    mock.push(with_usage(
        openai_text(&["Short but cut"], "length"),
        1_000,
        100,
    ));
    let response = agent.prompt(&session, "again").await;
    assert_eq!(response["result"]["stopReason"], "max_tokens", "{response}");
}

#[tokio::test]
async fn the_compaction_agent_may_have_a_model_of_its_own() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["provider"]["mock"]["models"]["cheap"] = json!({"name": "Cheap"});
    config["agent"] = json!({"compaction": {"model": "mock/cheap"}});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    mock.push(openai_text(&["Answer."], "stop"));
    agent.prompt(&session, "question").await;
    mock.push(summary_answer("## Goal\n- cheap summary"));
    agent.prompt(&session, "/compact").await;
    let requests = mock.requests();
    assert_eq!(requests[0].body["model"], "test-model");
    assert!(is_compaction(&requests[1].body));
    assert_eq!(requests[1].body["model"], "cheap");
}
