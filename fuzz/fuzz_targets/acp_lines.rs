//! Arbitrary bytes as the editor's side of `tandem acp`, served in process: Tandem must not
//! panic, must write nothing but JSON-RPC lines, and must answer only ids it was sent.
#![no_main]

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// What Tandem wrote, shared with the writer thread.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Output {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One runtime and one private home (data, config) for the whole run.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<(tokio::runtime::Runtime, tempfile::TempDir)> = OnceLock::new();
    &RUNTIME
        .get_or_init(|| {
            let home = tempfile::tempdir().unwrap();
            // SAFETY: set once, before any thread of the runtime exists.
            unsafe {
                std::env::set_var("HOME", home.path());
                std::env::set_var("TANDEM_DATA_DIR", home.path().join("data"));
                std::env::set_var("TANDEM_CONFIG_DIR", home.path().join("config"));
                std::env::remove_var("OPENAI_API_KEY");
                std::env::remove_var("ANTHROPIC_API_KEY");
            }
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            (runtime, home)
        })
        .0
}

/// The ids of the requests in `input` (objects with a `method` and an `id`).
fn request_ids(input: &[u8]) -> HashSet<String> {
    input
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter(|v| v.get("method").is_some())
        .filter_map(|v| v.get("id").map(Value::to_string))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let output = Output::default();
    let mut input = data.to_vec();
    input.push(b'\n');
    let _ = runtime().block_on(tandem::acp::serve_on(
        futures::io::Cursor::new(input),
        output.clone(),
        false,
    ));
    let written = output.0.lock().unwrap().clone();
    let sent = request_ids(data);
    for line in written.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line).expect("every line is JSON");
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        let is_answer = message.get("result").is_some() || message.get("error").is_some();
        if is_answer && message.get("method").is_none() {
            let id = message["id"].to_string();
            // An error for a line that could not be parsed has a null id.
            assert!(id == "null" || sent.contains(&id), "answered an id never sent: {message}");
        }
    }
});
