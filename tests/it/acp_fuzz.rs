//! The ACP edge against garbage: arbitrary bytes, arbitrary JSON, and well-formed requests with
//! arbitrary methods and params, from a seeded generator (so a failure repeats). Tandem must
//! not crash, must answer every request (result or error), and must go on serving.

use crate::support::TestEnv;
use serde_json::{Value, json};

/// xorshift64*: small, seeded, good enough to explore.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const METHODS: &[&str] = &[
    "initialize",
    "authenticate",
    "session/new",
    "session/load",
    "session/resume",
    "session/list",
    "session/prompt",
    "session/cancel",
    "session/close",
    "session/fork",
    "session/delete",
    "session/set_mode",
    "session/set_config_option",
    "_tandem/session/status",
    "_tandem/session/diff",
    "_tandem/session/revert",
    "_tandem/session/todo",
    "_tandem/nothing",
    "no/such/method",
    "",
];

fn value(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth > 2 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 1),
        2 => json!(rng.next() as i64),
        3 => json!(rng.pick(&[
            "",
            "x",
            "/",
            "/tmp",
            "..",
            "\u{0}",
            "é",
            "sessionId",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV"
        ])),
        4 => json!(-(rng.below(1000) as f64) / 3.0),
        5 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
        _ => {
            let keys = [
                "sessionId",
                "cwd",
                "prompt",
                "mcpServers",
                "methodId",
                "modeId",
                "configId",
                "value",
                "messageId",
                "_meta",
                "protocolVersion",
            ];
            let mut map = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                map.insert(rng.pick(&keys).to_owned(), value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

#[tokio::test]
async fn garbage_in_gets_answers_out_and_the_agent_keeps_serving() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut asked: Vec<i64> = Vec::new();
    for n in 0..400i64 {
        let line = match rng.below(4) {
            // Arbitrary bytes (newlines excluded: one line is one message).
            0 => {
                let bytes: Vec<u8> = (0..rng.below(80))
                    .map(|_| (rng.below(255) + 1) as u8)
                    .filter(|b| *b != b'\n' && *b != b'\r')
                    .collect();
                String::from_utf8_lossy(&bytes).into_owned()
            }
            // Arbitrary JSON.
            1 => value(&mut rng, 0).to_string(),
            // A notification with an arbitrary method and params.
            2 => {
                json!({"jsonrpc": "2.0", "method": rng.pick(METHODS), "params": value(&mut rng, 0)})
                    .to_string()
            }
            // A request: it must be answered.
            _ => {
                let id = 10_000 + n;
                asked.push(id);
                json!({"jsonrpc": "2.0", "id": id, "method": rng.pick(METHODS), "params": value(&mut rng, 0)})
                    .to_string()
            }
        };
        agent.send_raw(&line).await;
    }
    // Still serving: a real request gets a real answer.
    let list = agent.request("session/list", json!({})).await;
    assert!(list.get("result").is_some(), "{list}");
    for id in asked {
        let answered = agent
            .received
            .iter()
            .any(|m| m.get("method").is_none() && m["id"] == json!(id));
        if !answered {
            let response = agent.response(id).await;
            assert!(
                response.get("result").is_some() || response.get("error").is_some(),
                "{response}"
            );
        }
    }
    let session = agent.new_session(&env.project).await;
    assert!(!session.is_empty());
    assert!(
        agent.child.try_wait().unwrap().is_none(),
        "the agent is alive"
    );
    assert!(!agent.stderr().contains("panicked"), "{}", agent.stderr());
}

#[tokio::test]
async fn scalar_params_get_invalid_request_and_null_params_are_left_to_the_method() {
    let env = TestEnv::new();
    let mut agent = env.spawn();
    agent.initialize().await;
    agent
        .send_raw(r#"{"jsonrpc":"2.0","id":41,"method":"session/list","params":"x"}"#)
        .await;
    let scalar = agent.response(41).await;
    assert_eq!(scalar["error"]["code"], -32600, "{scalar}");
    agent
        .send_raw(r#"{"jsonrpc":"2.0","id":42,"method":"session/list","params":null}"#)
        .await;
    let null = agent.response(42).await;
    assert!(
        null.get("result").is_some() || null.get("error").is_some(),
        "{null}"
    );
    assert_ne!(null["error"]["code"], -32600, "{null}");
}
