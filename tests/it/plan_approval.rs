//! A plan the person approves, through the binary: in plan mode the model hands its plan to
//! `exit_plan`; approved (by an elicitation form, or by a permission prompt where the editor
//! has no forms) the session switches to build, the plan's steps fill the plan pane, the plan
//! is kept as a file in Tandem's data, and the same turn goes on to carry it out; "keep
//! planning" returns the person's words and the session stays in plan mode.

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::{AcpProcess, MockLlm, TestEnv};
use serde_json::{Value, json};

const PLAN: &str = "# Plan\n1. Create a.txt\n2. Check it";

async fn planning(capabilities: Value) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    agent.initialize_with(capabilities).await;
    let session = agent.new_session(&env.project).await;
    let set = agent
        .request(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "plan"}),
        )
        .await;
    assert!(set.get("result").is_some(), "{set}");
    let plan = json!({"plan": PLAN}).to_string();
    mock.push(openai_tool_call("call_plan", "exit_plan", &[&plan]));
    (mock, env, agent, session)
}

/// What the model read back from the `exit_plan` call (its second request's last message).
fn told(mock: &MockLlm) -> String {
    let request = &mock.requests()[1].body["messages"];
    request.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn offered_tools(mock: &MockLlm, index: usize) -> Vec<String> {
    mock.requests()[index].body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn approved_then_built(mut agent: AcpProcess, mock: MockLlm, env: TestEnv, session: String) {
    let write = json!({"filePath": "a.txt", "content": "a\n"}).to_string();
    mock.push(openai_tool_call("call_write", "write", &[&write]));
    mock.push(openai_text(&["Done."], "stop"));
    let done = agent.prompt(&session, "plan the change").await;
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    assert!(
        told(&mock).starts_with("The person approved the plan"),
        "{}",
        told(&mock)
    );
    assert!(offered_tools(&mock, 0).contains(&"exit_plan".to_owned()));
    assert!(
        !offered_tools(&mock, 1).contains(&"exit_plan".to_owned()),
        "the next step is build's"
    );
    assert_eq!(
        std::fs::read_to_string(env.project.join("a.txt")).unwrap(),
        "a\n",
        "the same turn carried the plan out"
    );
    let modes: Vec<Value> = agent.updates_of("current_mode_update");
    assert_eq!(
        modes,
        [json!({"sessionUpdate": "current_mode_update", "currentModeId": "build"})]
    );
    let plans = agent.updates_of("plan");
    let entries: Vec<&str> = plans[0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert_eq!(entries, ["Create a.txt", "Check it"]);
    let kept = env.data.join("plans").join(format!("{session}.md"));
    assert_eq!(std::fs::read_to_string(kept).unwrap(), format!("{PLAN}\n"));
}

#[tokio::test]
async fn a_plan_approved_in_a_form_switches_to_build_and_the_turn_carries_it_out() {
    let capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false},
                              "terminal": false, "elicitation": {"form": {}}});
    let (mock, env, mut agent, session) = planning(capabilities).await;
    agent.elicitation_reply =
        Some(json!({"action": "accept", "content": {"q1": "Implement the plan"}}));
    approved_then_built(agent, mock, env, session).await;
}

#[tokio::test]
async fn a_plan_approved_at_a_permission_prompt_does_the_same() {
    let capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false},
                              "terminal": false});
    let (mock, env, mut agent, session) = planning(capabilities).await;
    agent.permission_choice = Some("choice-0".into());
    approved_then_built(agent, mock, env, session).await;
}

#[tokio::test]
async fn keep_planning_returns_the_persons_words_and_stays_in_plan_mode() {
    let capabilities = json!({"fs": {"readTextFile": false, "writeTextFile": false},
                              "terminal": false, "elicitation": {"form": {}}});
    let (mock, _env, mut agent, session) = planning(capabilities).await;
    agent.elicitation_reply = Some(json!({"action": "accept", "content": {
        "q1": "Keep planning", "q1_text": "use a map instead"}}));
    mock.push(openai_text(&["Revising."], "stop"));
    agent.prompt(&session, "plan the change").await;
    let said = told(&mock);
    assert!(
        said.starts_with("The person wants to keep planning. Their words: use a map instead"),
        "{said}"
    );
    assert!(agent.updates_of("current_mode_update").is_empty());
    assert!(
        offered_tools(&mock, 1).contains(&"exit_plan".to_owned()),
        "still planning"
    );
}
