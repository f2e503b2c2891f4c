//! `tandem config check` (every error and unknown key named with its file, values shown with
//! the file they came from, secrets hidden, exit 1 on errors) and `tandem doctor` (data dir,
//! store, git, and each provider asked for its model list with its key), through the binary.

use crate::support::TestEnv;
use serde_json::json;

fn run(env: &TestEnv, args: &[&str]) -> (bool, String, String) {
    let output = env.command(args).output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn config_check_shows_where_each_value_came_from_and_hides_secrets() {
    let env = TestEnv::new();
    env.write_global_config(
        r#"{ // mine
        "model": "local/qwen",
        "provider": {"local": {"options": {"baseURL": "http://127.0.0.1:9/v1", "apiKey": "sk-hidden-77"}}}
    }"#,
    );
    env.write_project_config(&json!({"model": "local/big", "compaction": {"auto": false}}));
    let (ok, out, err) = run(&env, &["config", "check"]);
    assert!(ok, "{out}\n{err}");
    let global = env.config_dir.join("tandem.json").display().to_string();
    let project = env.project.join("tandem.json").display().to_string();
    assert!(out.contains(&format!("  ✓ {global}\n")), "{out}");
    assert!(out.contains(&format!("  ✓ {project}\n")), "{out}");
    assert!(
        out.contains(&format!("  model = \"local/big\"  ← {project}\n")),
        "the project wins: {out}"
    );
    assert!(
        out.contains(&format!(
            "  provider.local.options.baseURL = \"http://127.0.0.1:9/v1\"  ← {global}\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  provider.local.options.apiKey = (set, hidden)  ← {global}\n"
        )),
        "{out}"
    );
    assert!(!out.contains("sk-hidden-77"), "{out}");
    assert!(
        out.contains(&format!("  compaction.auto = false  ← {project}\n")),
        "{out}"
    );
}

#[test]
fn config_check_names_the_file_key_and_expectation_of_every_error() {
    let env = TestEnv::new();
    env.write_global_config(
        r#"{"model": "a/b", "modle": "typo", "provider": {"x": {"api": "grpc"}}}"#,
    );
    std::fs::write(env.project.join("tandem.json"), "{ \"model\": \"a/b\", }").unwrap();
    let (ok, out, err) = run(&env, &["config", "check"]);
    assert!(!ok, "errors exit non-zero");
    let global = env.config_dir.join("tandem.json").display().to_string();
    let project = env.project.join("tandem.json").display().to_string();
    assert!(
        out.contains(&format!(
            "  ✗ {global}: the value of `provider.x.api` is wrong: unknown variant `grpc`, \
             expected one of `openai`, `anthropic`, `responses`, `scripted`"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("  ✗ {project}: is not valid JSON (")),
        "{out}"
    );
    assert!(out.contains("trailing commas are not"), "{out}");
    assert!(err.contains("2 errors in the config"), "{err}");

    // An unknown key alone is a warning, named with its file; the check passes.
    env.write_global_config(r#"{"model": "a/b", "modle": "typo"}"#);
    std::fs::remove_file(env.project.join("tandem.json")).unwrap();
    let (ok, out, _) = run(&env, &["config", "check"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!(
            "  ✓ {global}\n    ! unknown key `modle` is ignored: Tandem has no such setting"
        )),
        "{out}"
    );
}

#[tokio::test]
async fn doctor_checks_the_store_git_and_each_provider_with_its_key() {
    let mock = crate::support::MockLlm::start().await;
    let env = TestEnv::new();
    env.write_global_config(
        &json!({
            "model": "good/test-model",
            "provider": {
                "good": {"options": {"baseURL": mock.url, "apiKey": "sk-test"}},
                "stale": {"options": {"baseURL": mock.url, "apiKey": "sk-rejected"}},
                "down": {"options": {"baseURL": "http://127.0.0.1:9/v1"}},
                "demo": {"api": "scripted"}
            }
        })
        .to_string(),
    );
    // A store with one session, made by a real turn.
    let mut agent = env.spawn();
    agent.initialize().await;
    agent.new_session(&env.project).await;
    agent.shutdown().await;

    // Off the test's one runtime thread, which serves the mock provider.
    let mut command = env.command(&["doctor", "--timeout", "3"]);
    let (ok, out, err) = tokio::task::spawn_blocking({
        move || {
            let output = command.output().unwrap();
            (
                output.status.success(),
                String::from_utf8_lossy(&output.stdout).into_owned(),
                String::from_utf8_lossy(&output.stderr).into_owned(),
            )
        }
    })
    .await
    .unwrap();
    assert!(!ok, "two providers are broken: {out}");
    assert!(err.contains("2 problems found"), "{err}");
    let data = env.data.display().to_string();
    assert!(
        out.contains(&format!("✓ data dir {data} is writable")),
        "{out}"
    );
    assert!(
        out.contains(&format!("✓ store {data}/tandem.db: sound, 1 session\n")),
        "{out}"
    );
    assert!(out.contains("✓ git version"), "{out}");
    assert!(out.contains("✓ default model good/test-model"), "{out}");
    assert!(
        out.contains(&format!(
            "✓ provider good: {} answered (2 models)",
            mock.url
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "✗ provider stale: {} refused the key (HTTP 401). Replace it: `tandem auth login stale`",
            mock.url
        )),
        "{out}"
    );
    assert!(
        out.contains("✗ provider down: cannot reach http://127.0.0.1:9/v1 ("),
        "{out}"
    );
    assert!(out.contains("✓ provider demo: scripted, offline"), "{out}");
    assert!(
        !out.contains("sk-test") && !out.contains("sk-rejected"),
        "{out}"
    );
}

#[test]
fn doctor_without_any_key_says_how_to_give_one() {
    let env = TestEnv::new();
    let (ok, out, _) = run(&env, &["doctor"]);
    assert!(ok, "nothing is broken: {out}");
    assert!(
        out.contains("! no model configured and no key found: the offline scripted demo answers"),
        "{out}"
    );
    assert!(out.contains("tandem auth login"), "{out}");
    assert!(out.contains("not created yet"), "{out}");
}

#[test]
fn doctor_says_which_model_a_key_alone_picks_and_by_what_rule() {
    let env = TestEnv::new();
    let mut command = env.command(&["doctor", "--timeout", "1"]);
    command
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/v1");
    let out = String::from_utf8(command.output().unwrap().stdout).unwrap();
    let catalog = tandem::provider::catalog::catalog();
    assert!(
        out.contains(&format!(
            "✓ model catalog of {} ({})",
            catalog.generated, catalog.source
        )),
        "{out}"
    );
    let picked = tandem::provider::catalog::defaults::for_provider(
        "anthropic",
        &tandem::provider::catalog::today(),
    )
    .unwrap();
    assert!(
        out.contains(&format!(
            "✓ default model anthropic/{}, small model anthropic/{} (titles, compaction): the anthropic key's pick by the catalog's rule, {}",
            picked.flagship,
            picked.small.unwrap(),
            tandem::provider::catalog::defaults::RULE
        )),
        "{out}"
    );
}
