//! An MCP server's questions through the binary: the test server's `ask` tool asks a form
//! (`elicitation/create`) during its call; the editor gets Tandem's own question form for that
//! call, and what the person answers (or that they declined) reaches the server and, through
//! its result, the model.

use serde_json::{Value, json};

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};

const ELICITING: &str = r#"{"elicitation": {"form": {}}}"#;

/// An editor that answers forms with `reply`, a session with the test server as `db`, one
/// call of its `ask` tool; the tool result the model read and the forms the editor got.
async fn ask(reply: Value) -> (String, Vec<Value>) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["permission"] = json!({"db_ask": "allow"});
    env.write_project_config(&config);
    let mut agent = env.spawn();
    agent
        .initialize_with(serde_json::from_str(ELICITING).unwrap())
        .await;
    agent.elicitation_reply = Some(reply);
    let server = json!({"name": "db", "command": crate::support::example_path("mcp_test_server"),
        "args": [], "env": []});
    let session = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [server]}),
        )
        .await["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    mock.push(openai_tool_call("call_ask", "db_ask", &["{}"]));
    mock.push(openai_text(&["Done."], "stop"));
    let response = agent.prompt(&session, "migrate").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let messages = mock.requests()[1].body["messages"].clone();
    let told = messages.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    (told, forms(&agent))
}

fn forms(agent: &AcpProcess) -> Vec<Value> {
    agent
        .received
        .iter()
        .filter(|m| m["method"] == "elicitation/create")
        .map(|m| m["params"].clone())
        .collect()
}

/// The form the editor is shown for the server's question.
fn expected_form() -> Value {
    json!({
        "mode": "form",
        "toolCallId": "call_ask",
        "message": "2 questions from the agent",
        "requestedSchema": {"type": "object", "required": ["q1", "q2"], "properties": {
            "q1": {"type": "string", "title": "Database",
                   "description": "The MCP server db asks: Which database should the migration target?",
                   "oneOf": [{"const": "PostgreSQL", "title": "PostgreSQL"},
                             {"const": "SQLite", "title": "SQLite"}]},
            "q2": {"type": "string", "title": "Run now", "description": "Run it right away?",
                   "oneOf": [{"const": "Yes", "title": "Yes"}, {"const": "No", "title": "No"}]}
        }}
    })
}

const ANSWERED: &str = r#"answer: "accept" {"db":"sqlite","now":true}"#;

#[tokio::test]
async fn a_servers_question_during_its_call_is_the_editors_form_and_the_answer_goes_back() {
    let reply = json!({"action": "accept", "content": {"q1": "SQLite", "q2": "Yes"}});
    let (told, forms) = ask(reply).await;
    assert_eq!(told, ANSWERED);
    assert_eq!(forms.len(), 1, "{forms:?}");
    let mut form = forms[0].clone();
    form.as_object_mut().unwrap().remove("sessionId");
    assert_eq!(form, expected_form());
}

#[tokio::test]
async fn a_declined_question_is_declined_to_the_server() {
    let (told, _) = ask(json!({"action": "decline"})).await;
    assert_eq!(told, r#"answer: "decline" null"#);
}
