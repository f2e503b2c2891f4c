//! Shared test support: the mock model provider and the raw ACP driver.
#![allow(dead_code, unused_imports)]

pub mod acp;
pub mod mock_llm;

pub use acp::{AcpProcess, TestEnv};
pub use mock_llm::{MockLlm, MockResponse};
