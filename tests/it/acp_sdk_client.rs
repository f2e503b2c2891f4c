//! The binary driven by the official Rust SDK's client side (not our raw driver): the same
//! code path an SDK-based editor uses, end to end against the mock provider.

use crate::support::mock_llm::openai_text;
use crate::support::{MockLlm, TestEnv};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::InitializeRequest;
use agent_client_protocol::v1::{ConnectionTo, SessionSetup};
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Agent, Client};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_client_streams_a_whole_turn() {
    let mock = MockLlm::start().await;
    mock.push(openai_text(&["Hello ", "from ", "Tandem"], "stop"));
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, "openai"));
    let config = AcpAgentConfig::new(env!("CARGO_BIN_EXE_tandem"))
        .arg("acp")
        .env("TANDEM_DATA_DIR", env.data.display().to_string())
        .env("TANDEM_CONFIG_DIR", env.config_dir.display().to_string())
        .env("HOME", env.root.path().display().to_string());
    let project = env.project.clone();
    let text = Client
        .v1()
        .connect_with(
            AcpAgent::new(config),
            async move |cx: ConnectionTo<Agent>| {
                let init = cx
                    .send_request(InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                assert_eq!(init.protocol_version, ProtocolVersion::V1);
                assert!(init.agent_capabilities.load_session);
                cx.build_session(&project)
                    .block_task()
                    .run_until(async |SessionSetup { mut session, .. }| {
                        session.send_prompt("Say hello")?;
                        session.read_to_string().await
                    })
                    .await
            },
        )
        .await
        .expect("the SDK client completes a turn");
    assert_eq!(text, "Hello from Tandem");
    assert_eq!(mock.requests().len(), 1);
}
