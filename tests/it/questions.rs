//! The `question` tool through the binary: an editor with form elicitation answers single,
//! multiple and free-text questions, declines and dismisses; `session/cancel` withdraws an
//! open form; an editor without elicitation gets permission-shaped questions (and "reply in
//! chat" ends the turn with the question); a subagent's question names the child's call.

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

const ELICITING: &str = r#"{"fs": {"readTextFile": false, "writeTextFile": false},
    "terminal": false, "elicitation": {"form": {}}}"#;

async fn editor(capabilities: &str) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent
        .initialize_with(serde_json::from_str(capabilities).unwrap())
        .await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}

fn database() -> Value {
    json!({"question": "Which database should the service use?", "header": "Database",
           "options": [{"label": "Postgres", "description": "Full SQL, runs as a server"},
                       {"label": "SQLite", "description": "One file, no server"}]})
}

/// Queues a `question` call with `questions` and a closing answer.
fn ask(mock: &MockLlm, questions: Value) {
    mock.push(openai_tool_call(
        "call_q",
        "question",
        &[&json!({"questions": questions}).to_string()],
    ));
    mock.push(openai_text(&["Noted."], "stop"));
}

/// The tool result the model read in its second request.
fn told(mock: &MockLlm) -> String {
    let request = &mock.requests()[1].body["messages"];
    let last = request.as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "tool");
    last["content"].as_str().unwrap().to_owned()
}

fn elicitations(agent: &AcpProcess) -> Vec<Value> {
    agent
        .received
        .iter()
        .filter(|m| m["method"] == "elicitation/create")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_single_choice_is_a_form_and_its_answer_reaches_the_model() {
    let (mock, _env, mut agent, session) = editor(ELICITING).await;
    agent.elicitation_reply = Some(json!({"action": "accept", "content": {"q1": "SQLite"}}));
    ask(&mock, json!([database()]));
    let response = agent.prompt(&session, "set up storage").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");

    let forms = elicitations(&agent);
    assert_eq!(forms.len(), 1);
    assert_eq!(
        forms[0]["params"],
        json!({
            "mode": "form",
            "sessionId": session,
            "toolCallId": "call_q",
            "message": "Which database should the service use?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "q1": {"type": "string", "title": "Database",
                           "description": "Which database should the service use?",
                           "oneOf": [
                               {"const": "Postgres", "title": "Postgres",
                                "description": "Full SQL, runs as a server"},
                               {"const": "SQLite", "title": "SQLite",
                                "description": "One file, no server"}]},
                    "q1_text": {"type": "string", "title": "Database: another answer",
                                "description": "Or answer in your own words"}
                }
            }
        })
    );
    assert_eq!(
        told(&mock),
        "The person answered:\n\n1. Which database should the service use? (Database)\n   \
         Answer: SQLite\n\nGo on with these answers."
    );
    let done = crate::support::call_updates(&agent, "call_q");
    let last = done.last().unwrap();
    assert_eq!(last["status"], "completed");
    assert_eq!(
        last["rawOutput"]["metadata"]["answers"],
        json!([{"chosen": ["SQLite"], "typed": null}])
    );
}

#[tokio::test]
async fn several_choices_and_words_of_the_persons_own_come_back_together() {
    let (mock, _env, mut agent, session) = editor(ELICITING).await;
    agent.elicitation_reply = Some(json!({"action": "accept", "content": {
        "q1": ["Lint", "Bogus", "Tests"], "q2_text": "port 8080"}}));
    ask(
        &mock,
        json!([
            {"question": "Which checks should CI run?", "header": "CI", "multiple": true,
             "custom": false,
             "options": [{"label": "Lint"}, {"label": "Tests"}, {"label": "Docs"}]},
            {"question": "Which port should it listen on?", "header": "Port"}
        ]),
    );
    agent.prompt(&session, "set up CI").await;
    let schema = &elicitations(&agent)[0]["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["q1"]["type"], "array");
    assert_eq!(schema["properties"]["q1"]["minItems"], 1);
    assert_eq!(
        schema["properties"]["q1"]["items"]["anyOf"][2],
        json!({"const": "Docs", "title": "Docs"})
    );
    assert_eq!(
        schema["properties"]["q2_text"],
        json!({"type": "string", "title": "Port", "description": "Which port should it listen on?"})
    );
    assert_eq!(schema["required"], json!(["q1", "q2_text"]));
    assert_eq!(
        elicitations(&agent)[0]["params"]["message"],
        "2 questions from the agent"
    );
    // "Bogus" is not an option: an editor's form is not trusted to have checked it.
    assert_eq!(
        told(&mock),
        "The person answered:\n\n1. Which checks should CI run? (CI)\n   Answer: Lint, Tests\n\n\
         2. Which port should it listen on? (Port)\n   Answer: \"port 8080\" (in their own \
         words)\n\nGo on with these answers."
    );
}

#[tokio::test]
async fn a_declined_or_dismissed_form_tells_the_model_to_go_on_without() {
    let (mock, _env, mut agent, session) = editor(ELICITING).await;
    agent.elicitation_reply = Some(json!({"action": "decline"}));
    ask(&mock, json!([database()]));
    agent.prompt(&session, "set up storage").await;
    assert!(
        told(&mock).starts_with("The person declined to answer."),
        "{}",
        told(&mock)
    );

    agent.elicitation_reply = Some(json!({"action": "cancel"}));
    ask(&mock, json!([database()]));
    let response = agent.prompt(&session, "again").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    let last = mock.requests()[3].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["content"],
        "Tool execution was cancelled by the person."
    );
}

#[tokio::test]
async fn cancelling_the_turn_withdraws_the_open_form() {
    let (mock, _env, mut agent, session) = editor(ELICITING).await;
    ask(&mock, json!([database()]));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}),
        )
        .await;
    while agent.held.is_empty() {
        agent.next_message().await;
    }
    let form_id = agent.held[0]["id"].clone();
    agent
        .notify("session/cancel", json!({"sessionId": session}))
        .await;
    let response = agent.response(prompt).await;
    assert_eq!(response["result"]["stopReason"], "cancelled", "{response}");
    assert!(
        agent
            .received
            .iter()
            .any(|m| m["method"] == "$/cancel_request" && m["params"]["requestId"] == form_id),
        "the form was withdrawn: {:?}",
        agent.received
    );
    assert_eq!(mock.requests().len(), 1, "the model was not asked again");
}

#[tokio::test]
async fn without_elicitation_the_question_is_a_permission_prompt_of_answers() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    agent.permission_choice = Some("choice-1".into());
    ask(&mock, json!([database()]));
    agent.prompt(&session, "set up storage").await;
    let asked = agent.permission_requests();
    assert_eq!(asked.len(), 1);
    let params = &asked[0]["params"];
    assert_eq!(
        params["options"],
        json!([
            {"optionId": "choice-0", "name": "Postgres", "kind": "allow_once"},
            {"optionId": "choice-1", "name": "SQLite", "kind": "allow_once"},
            {"optionId": "reply-in-chat", "name": "Reply in chat instead", "kind": "reject_once"}
        ])
    );
    assert_eq!(
        params["toolCall"]["title"],
        "Database: Which database should the service use?"
    );
    assert_eq!(
        params["toolCall"]["content"][0]["content"]["text"],
        "Which database should the service use?\n- Postgres: Full SQL, runs as a server\n- \
         SQLite: One file, no server"
    );
    assert!(told(&mock).contains("Answer: SQLite"), "{}", told(&mock));
}

#[tokio::test]
async fn replying_in_chat_ends_the_turn_with_the_question_and_the_next_prompt_answers() {
    let (mock, _env, mut agent, session) = crate::support::start("openai").await;
    agent.permission_choice = Some("reply-in-chat".into());
    mock.push(openai_tool_call(
        "call_q",
        "question",
        &[&json!({"questions": [database()]}).to_string()],
    ));
    let response = agent.prompt(&session, "set up storage").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(
        mock.requests().len(),
        1,
        "the turn ended after the question"
    );
    assert!(
        agent
            .agent_text()
            .contains("Which database should the service use?"),
        "{}",
        agent.agent_text()
    );
    // A free-text question skips the prompt altogether.
    mock.push(openai_tool_call(
        "call_free",
        "question",
        &[r#"{"questions": [{"question": "What should the service be called?", "header": "Name"}]}"#],
    ));
    let response = agent.prompt(&session, "Postgres, please").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert_eq!(
        agent.permission_requests().len(),
        1,
        "no prompt for a free-text question"
    );
    // The second turn's model saw the question's result, then the person's answer.
    let messages = mock.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .clone();
    let n = messages.len();
    assert_eq!(messages[n - 2]["role"], "tool");
    assert!(
        messages[n - 2]["content"]
            .as_str()
            .unwrap()
            .starts_with("The person will answer in their next message")
    );
    assert_eq!(
        messages[n - 1]["content"],
        "Postgres, please",
        "{messages:?}"
    );
    assert!(
        agent
            .agent_text()
            .contains("What should the service be called?")
    );
}

#[tokio::test]
async fn a_subagents_question_reaches_the_editor_under_the_childs_call() {
    let (mock, _env, mut agent, session) = editor(ELICITING).await;
    agent.elicitation_reply = Some(json!({"action": "accept", "content": {"q1": "Postgres"}}));
    mock.push(openai_tool_call(
        "call_task",
        "task",
        &[
            &json!({"description": "Pick storage", "prompt": "Choose the storage",
                  "subagent_type": "general"})
            .to_string(),
        ],
    ));
    mock.push_for(
        "Choose the storage",
        openai_tool_call(
            "c_q",
            "question",
            &[&json!({"questions": [database()]}).to_string()],
        ),
    );
    mock.push(openai_text(&["Postgres it is."], "stop"));
    mock.push(openai_text(&["The helper chose Postgres."], "stop"));
    let response = agent.prompt(&session, "delegate it").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    let children = agent
        .request("_tandem/session/children", json!({"sessionId": session}))
        .await;
    let child = children["result"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    let form = &elicitations(&agent)[0]["params"];
    assert_eq!(
        form["sessionId"], session,
        "asked on the session the editor shows"
    );
    assert_eq!(form["toolCallId"], format!("{child}/c_q"));
    let child_request = &mock.requests()[2].body["messages"];
    let result = child_request.as_array().unwrap().last().unwrap();
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("Answer: Postgres"),
        "{result}"
    );
}
