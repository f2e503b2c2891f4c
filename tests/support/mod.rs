//! Shared test support: the mock model provider and the raw ACP driver.
#![allow(dead_code, unused_imports)]

pub mod acp;
pub mod mock_llm;

pub use acp::{AcpProcess, TestEnv};
pub use mock_llm::{MockLlm, MockResponse};

/// A mock provider speaking `api`, a project configured for it, a running agent after
/// `initialize`, and a new session in the project.
pub async fn start(api: &str) -> (MockLlm, TestEnv, AcpProcess, String) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    env.write_project_config(&TestEnv::mock_config(&mock.url, api));
    let mut agent = env.spawn();
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    (mock, env, agent, session)
}
