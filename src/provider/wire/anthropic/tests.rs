use super::*;

#[test]
fn tool_use_blocks_and_thinking_stream_in_order() {
    let mut parser = Parser::new("anthropic".into());
    let mut out = VecDeque::new();
    let events = [
        r#"{"type":"message_start","message":{"usage":{"input_tokens":50,"cache_read_input_tokens":10,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"list","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\".\"}"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}"#,
        r#"{"type":"message_stop"}"#,
    ];
    for data in events {
        let event = Event {
            data: data.into(),
            ..Default::default()
        };
        if parser.on_event(&event, &mut out).unwrap() == Flow::Done {
            break;
        }
    }
    parser.on_end(&mut out).unwrap();
    let events: Vec<_> = out.into_iter().collect();
    assert_eq!(
        events,
        [
            StreamEvent::ReasoningDelta("Hmm".into()),
            StreamEvent::ReasoningSignature("sig".into()),
            StreamEvent::ToolCallStart {
                id: "toolu_1".into(),
                name: "list".into()
            },
            StreamEvent::ToolCall {
                id: "toolu_1".into(),
                name: "list".into(),
                arguments: r#"{"path":"."}"#.into()
            },
            StreamEvent::Usage(Usage {
                input: 50,
                output: 30,
                reasoning: 0,
                cache_read: 10,
                cache_write: 0
            }),
            StreamEvent::Finish(FinishReason::ToolCalls),
        ]
    );
}

#[test]
fn tool_results_join_the_next_user_turn() {
    let messages = messages_json(&[
        ModelMessage::User(vec![UserContent::Text("hi".into())]),
        ModelMessage::Assistant(vec![AssistantContent::ToolCall {
            id: "t1".into(),
            name: "list".into(),
            input: json!({}),
        }]),
        ModelMessage::ToolResult {
            call_id: "t1".into(),
            name: "list".into(),
            output: "x".into(),
            is_error: false,
            images: vec![],
        },
        ModelMessage::User(vec![UserContent::Text("next".into())]),
    ]);
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][1]["text"], "next");
}

#[test]
fn a_server_search_streams_its_query_pages_and_citations_and_a_failed_one_its_reason() {
    let mut parser = Parser::new("anthropic".into());
    let mut out = VecDeque::new();
    let events = [
        json!({"type": "content_block_start", "index": 0, "content_block":
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{\"query\":\"a b\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block":
            {"type": "web_search_tool_result", "tool_use_id": "s1",
             "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}}),
        json!({"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta",
            "citation": {"type": "web_search_result_location", "url": "https://x.org", "title": ""}}}),
    ];
    for value in events {
        let event = Event {
            event: value["type"].as_str().unwrap().to_owned(),
            data: value.to_string(),
        };
        parser.on_event(&event, &mut out).unwrap();
    }
    let out: Vec<StreamEvent> = out.into_iter().collect();
    assert_eq!(
        out,
        [
            StreamEvent::SearchStarted { id: "s1".into() },
            StreamEvent::SearchDone {
                id: "s1".into(),
                query: "a b".into(),
                sources: Vec::new(),
                error: Some("the search failed (max_uses_exceeded)".into()),
            },
            StreamEvent::Citation(crate::message::Source {
                url: "https://x.org".into(),
                title: None,
            }),
        ]
    );
}
