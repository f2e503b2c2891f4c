//! `tandem models`: the project's models with context size, output limit and prices, the
//! default marked, and a model that cannot be used said so with the reason.

use crate::support::TestEnv;
use serde_json::json;

fn models(env: &TestEnv, args: &[&str]) -> String {
    let out = env.command(&[&["models"], args].concat()).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn lists_models_with_windows_prices_and_problems() {
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config("http://127.0.0.1:9", "openai");
    // The default names a provider nobody configured.
    config["model"] = json!("ghost/model");
    env.write_project_config(&config);
    let text = models(&env, &[]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "mock/test-model  Test Model  context 100,000, output 4,096, $1.00 in / $2.00 out per million tokens"
    );
    let ghost = lines
        .iter()
        .find(|l| l.starts_with("ghost/model (default)"))
        .unwrap();
    assert!(
        ghost.contains("not usable:") && ghost.contains("ghost"),
        "{ghost}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("scripted/demo  Scripted demo (no network)")),
        "{text}"
    );

    let listed: serde_json::Value = serde_json::from_str(&models(&env, &["--json"])).unwrap();
    assert_eq!(listed[0]["id"], "mock/test-model");
    assert_eq!(listed[0]["context"], 100000);
    assert_eq!(listed[0]["cost"]["output"], 2.0);
    let ghost = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "ghost/model")
        .unwrap();
    assert_eq!(
        (ghost["usable"].clone(), ghost["default"].clone()),
        (json!(false), json!(true))
    );
}
