//! The editor's system prompt (ACP `systemPrompt`) through the binary: advertised, appended to
//! the agent's own on every request, kept with the session across processes, and an override
//! or a non-text block refused.

use crate::support::mock_llm::openai_text;
use crate::support::{MockLlm, TestEnv};
use serde_json::json;

#[tokio::test]
async fn the_editors_prompt_is_appended_kept_and_only_appended() {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let mut agent = env.spawn();
    let init = agent.initialize().await;
    assert_eq!(
        init["result"]["agentCapabilities"]["sessionCapabilities"]["systemPrompt"],
        json!({})
    );
    let extra = "Answer in the voice of a ship's log.";
    let opened = agent
        .request(
            "session/new",
            json!({"cwd": env.project, "mcpServers": [],
                   "systemPrompt": {"mode": "append", "content": [{"type": "text", "text": extra}]}}),
        )
        .await;
    let session = opened["result"]["sessionId"].as_str().unwrap().to_owned();
    mock.push(openai_text(&["Logged."], "stop"));
    agent.prompt(&session, "hello").await;
    let system = |index: usize| {
        mock.requests()[index].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "system")
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
    };
    // The system messages go as one, in order: the agent's own, then the editor's.
    let appended = |index: usize| {
        let text = system(index).join("\n\n");
        text.starts_with("You are Tandem") && text.ends_with(&format!("</env>\n\n{extra}"))
    };
    assert!(appended(0), "{:?}", system(0));

    drop(agent);
    let mut agent = env.spawn();
    agent.initialize().await;
    let loaded = agent
        .request(
            "session/load",
            json!({"sessionId": session, "cwd": env.project, "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("result").is_some(), "{loaded}");
    mock.push(openai_text(&["Still logged."], "stop"));
    agent.prompt(&session, "again").await;
    assert!(appended(1), "kept across processes: {:?}", system(1));

    for bad in [
        json!({"mode": "override", "content": [{"type": "text", "text": "x"}]}),
        json!({"mode": "append", "content": [{"type": "image", "data": "", "mimeType": "image/png"}]}),
        json!({"mode": "append", "content": [{"type": "text", "text": "  "}]}),
    ] {
        let answer = agent
            .request(
                "session/new",
                json!({"cwd": env.project, "mcpServers": [], "systemPrompt": bad}),
            )
            .await;
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
}
