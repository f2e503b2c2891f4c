//! MCP servers behind a login, through the binary: a server on 127.0.0.1 that answers 401
//! with OAuth metadata and its authorization server (tests/support/oauth_server.rs). The
//! editor is asked to open the login link (URL elicitation), or told it in the conversation;
//! the person's browser (a GET that follows redirects) logs in; the server's tools then run,
//! its short-lived token is refreshed, the login is kept 0600 in the data dir and used by the
//! next process; `tandem mcp login` does the same at a terminal and `tandem mcp logout`
//! forgets it; a refused login is reported by name and the session goes on.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::support::mock_llm::{openai_text, openai_tool_call};
use crate::support::oauth_server::OAuthServer;
use crate::support::{AcpProcess, MockLlm, TestEnv};

/// The project: the mock model, the server as `docs` in the config, its tool allowed.
async fn project(server: &OAuthServer) -> (MockLlm, TestEnv) {
    let mock = MockLlm::start().await;
    let env = TestEnv::new();
    let mut config = TestEnv::mock_config(&mock.url, "openai");
    config["mcp"] = json!({"docs": {"type": "remote", "url": server.mcp_url()}});
    config["permission"] = json!({"docs_echo": "allow"});
    env.write_project_config(&config);
    (mock, env)
}

/// An agent whose editor takes links (`url`) or not, with a session open.
async fn editor(env: &TestEnv, links: bool) -> (AcpProcess, String) {
    let mut agent = env.spawn();
    let capabilities = match links {
        true => json!({"elicitation": {"url": {}}}),
        false => json!({}),
    };
    agent.initialize_with(capabilities).await;
    agent.elicitation_reply = Some(json!({"action": "accept"}));
    let session = agent.new_session(&env.project).await;
    (agent, session)
}

/// The person's browser: opens `link` and follows its redirects; the page it ends on.
async fn browse(link: &str) -> String {
    let response = tandem::provider::http_client()
        .get(link)
        .send()
        .await
        .unwrap();
    response.text().await.unwrap()
}

/// The login files in the data dir.
fn kept(env: &TestEnv) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(env.data.join("mcp-auth"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Runs a prompt in which the model calls `docs_echo`; what the tool told it.
async fn echo(mock: &MockLlm, agent: &mut AcpProcess, session: &str, text: &str) -> String {
    let before = mock.requests().len();
    mock.push(openai_tool_call(
        "call_echo",
        "docs_echo",
        &[&json!({"text": text}).to_string()],
    ));
    mock.push(openai_text(&["Done."], "stop"));
    agent.prompt(session, "echo it").await;
    let messages = mock.requests()[before + 1].body["messages"].clone();
    messages.as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Waits for the editor's `elicitation/create` (asked aside while the turn goes on).
async fn link_asked(agent: &mut AcpProcess) -> Value {
    loop {
        if let Some(asked) = agent
            .received
            .iter()
            .find(|m| m["method"] == "elicitation/create")
        {
            return asked["params"].clone();
        }
        agent.next_message().await;
    }
}

#[tokio::test]
async fn the_editors_link_logs_in_then_the_tool_runs_its_token_is_refreshed_and_logout_forgets() {
    let server = OAuthServer::start().await;
    let (mock, env) = project(&server).await;
    let (mut agent, session) = editor(&env, true).await;
    mock.push(openai_text(&["Hello."], "stop"));
    agent.prompt(&session, "hi").await;
    let asked = link_asked(&mut agent).await;
    assert_eq!(asked["mode"], "url");
    assert_eq!(asked["sessionId"], session);
    assert_eq!(
        asked["message"],
        "The MCP server `docs` needs you to log in. Its tools join this session once you have."
    );
    let link = asked["url"].as_str().unwrap().to_owned();
    assert!(
        link.starts_with(&format!("{}/authorize?", server.base)),
        "{link}"
    );
    assert!(link.contains("code_challenge_method=S256"), "{link}");
    let offered = mock.requests()[0].body["tools"].to_string();
    assert!(!offered.contains("docs_echo"), "no tools before the login");

    let page = browse(&link).await;
    assert!(
        page.contains("Tandem is logged in to the MCP server docs"),
        "{page}"
    );
    let registered = server.books.lock().unwrap().registered.clone();
    assert_eq!(registered.len(), 1);
    assert!(
        registered[0].starts_with("http://127.0.0.1:"),
        "{registered:?}"
    );

    assert_eq!(echo(&mock, &mut agent, &session, "hi").await, "echo: hi");
    assert_eq!(server.books.lock().unwrap().echoes, 1);
    assert_eq!(server.books.lock().unwrap().refreshes, 0);
    // The server stops taking the token: Tandem refreshes it and the call goes through.
    server.books.lock().unwrap().access.clear();
    assert_eq!(
        echo(&mock, &mut agent, &session, "again").await,
        "echo: again"
    );
    assert_eq!(server.books.lock().unwrap().echoes, 2);
    let files = kept(&env);
    assert_eq!(files.len(), 1, "{files:?}");
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the login is the person's alone");
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let token = stored["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(server.books.lock().unwrap().refreshes, 1, "refreshed once");
    assert_ne!(token, "at-2", "the kept token is the refreshed one");
    assert!(server.books.lock().unwrap().access.contains(&token));
    agent.shutdown().await;

    // The next process uses the kept login: no link, the tool runs.
    let (mut again, session) = editor(&env, true).await;
    assert_eq!(
        echo(&mock, &mut again, &session, "again").await,
        "echo: again"
    );
    assert!(
        !again
            .received
            .iter()
            .any(|m| m["method"] == "elicitation/create")
    );
    again.shutdown().await;

    let out = env.command(&["mcp", "logout", "docs"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Logged out of the MCP server docs.\n"
    );
    assert!(kept(&env).is_empty());
}

#[tokio::test]
async fn a_refused_login_is_reported_by_name_and_the_session_goes_on() {
    let server = OAuthServer::start().await;
    server.books.lock().unwrap().refuse = true;
    let (mock, env) = project(&server).await;
    // An editor without links: the link is a line in the conversation.
    let (mut agent, session) = editor(&env, false).await;
    mock.push(openai_text(&["Hello."], "stop"));
    agent.prompt(&session, "hi").await;
    let said = agent.agent_text();
    let link = said
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{}/authorize?", server.base)))
        .unwrap_or_else(|| panic!("no link in: {said}"))
        .to_owned();
    assert!(
        said.contains("The MCP server `docs` needs you to log in."),
        "{said}"
    );
    let page = browse(&link).await;
    assert!(
        page.contains("refused the login (access_denied: no)"),
        "{page}"
    );

    mock.push(openai_text(&["Still here."], "stop"));
    let response = agent.prompt(&session, "and now?").await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
    assert!(
        agent.agent_text().contains(
            "The MCP server `docs` is not available in this session: the login failed: the \
             authorization server refused the login (access_denied: no)"
        ),
        "{}",
        agent.agent_text()
    );
    let tools = mock.requests()[1].body["tools"].to_string();
    assert!(!tools.contains("docs_echo"), "{tools}");
    assert!(kept(&env).is_empty(), "nothing kept");
}

#[tokio::test]
async fn tandem_mcp_login_at_a_terminal_keeps_a_login_sessions_use() {
    let server = OAuthServer::start().await;
    let (mock, env) = project(&server).await;
    let mut login = env
        .command(&["mcp", "login", "docs"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its lines are read off the runtime, which serves the authorization server meanwhile.
    let (tx, mut said) = tokio::sync::mpsc::unbounded_channel();
    let stdout = login.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    assert_eq!(
        said.recv().await.unwrap(),
        "Open this link to log in to the MCP server docs:"
    );
    let link = said.recv().await.unwrap();
    let page = browse(&link).await;
    assert!(page.contains("Tandem is logged in"), "{page}");
    assert_eq!(
        said.recv().await.unwrap(),
        "Logged in to the MCP server docs (1 tools)."
    );
    assert!(login.wait().unwrap().success());
    assert_eq!(kept(&env).len(), 1);

    let (mut agent, session) = editor(&env, true).await;
    assert_eq!(
        echo(&mock, &mut agent, &session, "kept").await,
        "echo: kept"
    );
    assert!(
        !agent
            .received
            .iter()
            .any(|m| m["method"] == "elicitation/create")
    );
}
