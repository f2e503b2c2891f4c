use super::*;
use crate::provider::ToolSpec;

fn feed(lines: &[&str]) -> Result<Vec<StreamEvent>, ProviderError> {
    let mut parser = Parser::new("openai".into());
    let mut out = VecDeque::new();
    for data in lines {
        let event = Event {
            data: (*data).into(),
            ..Default::default()
        };
        if parser.on_event(&event, &mut out)? == Flow::Done {
            break;
        }
    }
    parser.on_end(&mut out)?;
    Ok(out.into_iter().collect())
}

#[test]
fn reasoning_text_and_a_call_stream_in_order() {
    let events = feed(&[
        r#"{"type":"response.created","response":{"id":"resp_1"}}"#,
        r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}}"#,
        r#"{"type":"response.reasoning_summary_part.added","item_id":"rs_1","summary_index":0}"#,
        r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","delta":"Look first."}"#,
        r#"{"type":"response.reasoning_summary_part.added","item_id":"rs_1","summary_index":1}"#,
        r#"{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","delta":"Then act."}"#,
        r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"ENC1"}}"#,
        r#"{"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}}"#,
        r#"{"type":"response.output_text.delta","item_id":"msg_1","delta":"Listing."}"#,
        r#"{"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"list","arguments":""}}"#,
        r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"path\":"}"#,
        r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"\".\"}"}"#,
        r#"{"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"list","arguments":"{\"path\":\".\"}"}}"#,
        r#"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":64},"output_tokens":30,"output_tokens_details":{"reasoning_tokens":12}}}}"#,
    ])
    .unwrap();
    assert_eq!(
        events,
        [
            StreamEvent::ReasoningDelta("Look first.".into()),
            StreamEvent::ReasoningDelta("\n\n".into()),
            StreamEvent::ReasoningDelta("Then act.".into()),
            StreamEvent::ReasoningItem(ReasoningItem {
                id: "rs_1".into(),
                encrypted: Some("ENC1".into())
            }),
            StreamEvent::TextDelta("Listing.".into()),
            StreamEvent::ToolCallStart {
                id: "call_1".into(),
                name: "list".into()
            },
            StreamEvent::ToolCall {
                id: "call_1".into(),
                name: "list".into(),
                arguments: r#"{"path":"."}"#.into()
            },
            StreamEvent::Usage(Usage {
                input: 36,
                output: 30,
                reasoning: 12,
                cache_read: 64,
                cache_write: 0
            }),
            StreamEvent::Finish(FinishReason::ToolCalls),
        ]
    );
}

#[test]
fn failures_and_cut_streams_are_errors_and_incomplete_is_a_length_stop() {
    let failed = feed(&[
        r#"{"type":"response.failed","response":{"error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}}"#,
    ])
    .unwrap_err();
    assert!(failed.is_context_overflow(), "{failed}");
    let error = feed(&[r#"{"type":"error","code":"server_error","message":"boom"}"#]).unwrap_err();
    assert!(error.to_string().contains("boom"), "{error}");
    let cut = feed(&[r#"{"type":"response.output_text.delta","delta":"Hal"}"#]).unwrap_err();
    assert!(cut.is_broken());
    let incomplete = feed(&[
        r#"{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"}}}"#,
    ])
    .unwrap();
    assert_eq!(incomplete, [StreamEvent::Finish(FinishReason::Length)]);
}

#[test]
fn history_becomes_input_items_with_reasoning_sent_back() {
    let request = ModelRequest {
        model: "gpt-5".into(),
        system: vec!["sys".into(), "env".into()].into(),
        messages: vec![
            ModelMessage::User(vec![UserContent::Text("hi".into())]),
            ModelMessage::Assistant(vec![
                AssistantContent::Reasoning {
                    text: "Look first.".into(),
                    signature: None,
                    item: Some(ReasoningItem {
                        id: "rs_1".into(),
                        encrypted: Some("ENC1".into()),
                    }),
                },
                // Another provider's reasoning cannot go to this one.
                AssistantContent::Reasoning {
                    text: "foreign".into(),
                    signature: Some("sig".into()),
                    item: None,
                },
                AssistantContent::Text("Listing.".into()),
                AssistantContent::ToolCall {
                    id: "call_1".into(),
                    name: "list".into(),
                    input: json!({"path": "."}),
                },
            ]),
            ModelMessage::ToolResult {
                call_id: "call_1".into(),
                name: "list".into(),
                output: "a\nb".into(),
                is_error: false,
                images: vec![],
            },
        ],
        tools: vec![ToolSpec {
            name: "list".into(),
            description: "Lists".into(),
            parameters: json!({"type": "object"}),
        }]
        .into(),
        cache_key: Some("ses_1".into()),
        max_output_tokens: Some(1000),
        ..Default::default()
    };
    let body = request_body(&request);
    assert_eq!(
        body,
        json!({
            "model": "gpt-5",
            "instructions": "sys\n\nenv",
            "input": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                {"type": "reasoning", "id": "rs_1",
                 "summary": [{"type": "summary_text", "text": "Look first."}],
                 "encrypted_content": "ENC1"},
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Listing."}]},
                {"type": "function_call", "call_id": "call_1", "name": "list",
                 "arguments": "{\"path\":\".\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "a\nb"}
            ],
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "tools": [{"type": "function", "name": "list", "description": "Lists",
                       "parameters": {"type": "object"}}],
            "tool_choice": "auto",
            "max_output_tokens": 1000,
            "prompt_cache_key": "ses_1"
        })
    );
}
