//! `tandem serve` against the store a real `tandem acp` process writes: every REST route, every
//! JSON-RPC method over HTTP and WebSocket, a subscription that sees the other process's
//! prompt, and the bearer token rule.

use std::process::Stdio;
use std::time::Duration;

use crate::support::TestEnv;
use crate::support::mock_llm::openai_text;
use jsonrpsee::core::client::{ClientT, SubscriptionClientT};
use jsonrpsee::http_client::HttpClientBuilder;
use jsonrpsee::rpc_params;
use jsonrpsee::ws_client::WsClientBuilder;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A running `tandem serve` and its address.
struct Server {
    _child: Child,
    url: String,
}

/// The token the tests' servers are given.
const TOKEN: &str = "test-token-0123456789";

/// The header every request to a test server carries.
fn headers() -> jsonrpsee::http_client::HeaderMap {
    let mut headers = jsonrpsee::http_client::HeaderMap::new();
    headers.insert("authorization", format!("Bearer {TOKEN}").parse().unwrap());
    headers
}

fn serve_command(env: &TestEnv, listen: &str, extra: &[(&str, &str)]) -> Command {
    let mut command = Command::from(env.command(&["serve", "--listen", listen]));
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command.env("TANDEM_SERVER_TOKEN", TOKEN);
    for (name, value) in extra {
        command.env(name, value);
    }
    command
}

async fn serve(env: &TestEnv, extra: &[(&str, &str)]) -> Server {
    let mut child = serve_command(env, "127.0.0.1:0", extra).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the server announces its address")
        .unwrap()
        .expect("a first line");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    Server { _child: child, url }
}

async fn get(url: &str) -> (u16, Value) {
    let response = tandem::provider::http_client()
        .clone()
        .get(url)
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn post(url: &str, body: Value) -> (u16, Value) {
    let response = tandem::provider::http_client()
        .clone()
        .post(url)
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn every_route_and_method_answers_from_the_editors_store() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    crate::support::write_turn(&mock, &mut agent, &session, "one", "a.txt").await;
    crate::support::write_turn(&mock, &mut agent, &session, "two", "b.txt").await;
    let server = serve(&env, &[]).await;
    let base = &server.url;

    let (status, list) = get(&format!("{base}/session")).await;
    assert_eq!(status, 200);
    assert_eq!(list[0]["id"], session.as_str());
    assert_eq!(list[0]["directory"], json!(env.project));
    let (_, one) = get(&format!("{base}/session/{session}")).await;
    assert_eq!(one["id"], session.as_str());
    assert_eq!(
        get(&format!("{base}/session/status")).await,
        (200, json!({}))
    );
    assert_eq!(
        get(&format!("{base}/session/{session}/children")).await,
        (200, json!([]))
    );
    assert_eq!(
        get(&format!("{base}/session/{session}/todo")).await,
        (200, json!([]))
    );
    let (_, messages) = get(&format!("{base}/session/{session}/message")).await;
    let prompts: Vec<String> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["info"]["role"] == "user")
        .map(|m| m["info"]["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(prompts.len(), 2);
    let (_, diff) = get(&format!(
        "{base}/session/{session}/diff?messageID={}",
        prompts[1]
    ))
    .await;
    assert_eq!(diff.as_array().unwrap().len(), 1, "{diff}");
    assert_eq!(diff[0]["path"], "b.txt");
    assert_eq!(diff[0]["status"], "added");
    assert_eq!(diff[0]["after"], "two\n");
    let (_, transcript) = get(&format!("{base}/session/{session}/transcript?format=md")).await;
    let text = transcript["transcript"].as_str().unwrap();
    assert!(
        text.contains("## User\n\none\n") && text.contains("- `write` a.txt: completed"),
        "{text}"
    );

    // The editor's process is idle now; the server may revert and unrevert.
    let (status, reverted) = post(
        &format!("{base}/session/{session}/revert"),
        json!({"messageID": prompts[1]}),
    )
    .await;
    assert_eq!(status, 200, "{reverted}");
    assert_eq!(reverted["revert"]["messageID"], prompts[1].as_str());
    assert!(!env.project.join("b.txt").exists());
    let (status, back) = post(&format!("{base}/session/{session}/unrevert"), json!({})).await;
    assert_eq!(status, 200, "{back}");
    assert_eq!(
        std::fs::read_to_string(env.project.join("b.txt")).unwrap(),
        "two\n"
    );
    let (status, forked) = post(
        &format!("{base}/session/{session}/fork"),
        json!({"messageID": prompts[1]}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        forked["title"].as_str().unwrap().ends_with("(fork #1)"),
        "{forked}"
    );
    let (status, missing) = get(&format!("{base}/session/nope/todo")).await;
    assert_eq!((status, missing["code"].clone()), (404, json!(-32002)));
    let (status, _) = post(&format!("{base}/session/{session}/revert"), json!({})).await;
    assert_eq!(status, 400, "revert needs a message");

    // The same surface as JSON-RPC, over HTTP and over WebSocket.
    let http = HttpClientBuilder::default()
        .set_headers(headers())
        .build(base)
        .unwrap();
    let ws = WsClientBuilder::default()
        .set_headers(headers())
        .build(base.replace("http://", "ws://"))
        .await
        .unwrap();
    exercise(&http, &session, &prompts).await;
    exercise(&ws, &session, &prompts).await;
    let error = ClientT::request::<Value, _>(
        &http,
        "session.get",
        rpc_params![json!({"sessionID": "nope"})],
    )
    .await
    .unwrap_err();
    assert!(
        error.to_string().contains("session nope not found"),
        "{error}"
    );
}

/// Every `session.*` method through `client` (HTTP or WebSocket alike).
async fn exercise<C: ClientT + Sync>(client: &C, session: &str, prompts: &[String]) {
    let call = async |method: &str, params: Value| -> Value {
        match client.request(method, rpc_params![params.clone()]).await {
            Ok(value) => value,
            Err(error) => panic!("{method}({params}): {error}"),
        }
    };
    let by_id = json!({"sessionID": session});
    let listed = call("session.list", json!({})).await;
    let count = listed["sessions"].as_array().unwrap().len();
    assert!(count >= 2, "the session and its forks: {listed}");
    assert_eq!(call("session.get", by_id.clone()).await["id"], session);
    assert_eq!(call("session.status", json!({})).await, json!({}));
    assert_eq!(
        call("session.status", by_id.clone()).await,
        json!({"type": "idle"})
    );
    assert_eq!(call("session.children", by_id.clone()).await, json!([]));
    assert_eq!(call("session.todo", by_id.clone()).await, json!([]));
    let messages = call("session.messages", by_id.clone()).await;
    assert_eq!(
        messages.as_array().unwrap().len(),
        6,
        "two turns of a prompt and two steps"
    );
    let diff = call(
        "session.diff",
        json!({"sessionID": session, "messageID": prompts[0]}),
    )
    .await;
    assert_eq!(diff.as_array().unwrap().len(), 2);
    let transcript = call(
        "session.transcript",
        json!({"sessionID": session, "format": "json"}),
    )
    .await;
    assert!(
        transcript["transcript"]
            .as_str()
            .unwrap()
            .contains("\"role\": \"user\"")
    );
    let reverted = call(
        "session.revert",
        json!({"sessionID": session, "messageID": prompts[1]}),
    )
    .await;
    assert_eq!(reverted["revert"]["messageID"], prompts[1].as_str());
    let back = call("session.unrevert", by_id.clone()).await;
    assert!(back.get("revert").is_none());
    let fork = call("session.fork", by_id.clone()).await;
    let copied = call("session.messages", json!({"sessionID": fork["id"]})).await;
    assert_eq!(copied.as_array().unwrap().len(), 6);
    let listed = call("session.list", json!({})).await;
    assert_eq!(listed["sessions"].as_array().unwrap().len(), count + 1);
}

#[tokio::test]
async fn a_subscription_sees_another_processs_prompt() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    let server = serve(&env, &[]).await;
    let ws = WsClientBuilder::default()
        .set_headers(headers())
        .build(server.url.replace("http://", "ws://"))
        .await
        .unwrap();
    let mut events = ws
        .subscribe::<Value, _>(
            "session.subscribe",
            rpc_params![json!({"sessionID": session})],
            "session.unsubscribe",
        )
        .await
        .unwrap();
    mock.push(openai_text(&["slow", " reply"], "stop").paced(Duration::from_millis(300)));
    let prompt = agent
        .start_request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "hello there"}]}),
        )
        .await;
    let mut seen: Vec<String> = Vec::new();
    let mut user_text = false;
    let mut busy = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !(user_text && busy && seen.iter().any(|s| s == "session.status:idle")) {
        let event = tokio::time::timeout_at(deadline, events.next())
            .await
            .unwrap_or_else(|_| panic!("events so far: {seen:?}"))
            .unwrap()
            .unwrap();
        let kind = event["type"].as_str().unwrap().to_owned();
        match kind.as_str() {
            "session.status" => {
                let status = event["properties"]["status"]["type"].as_str().unwrap();
                busy |= status == "busy";
                seen.push(format!("{kind}:{status}"));
            }
            "message.part.updated" => {
                let part = &event["properties"]["part"];
                assert_eq!(part["session_id"], session.as_str());
                user_text |= part["text"] == "hello there";
                seen.push(format!("{kind}:{}", part["type"].as_str().unwrap()));
            }
            _ => seen.push(kind),
        }
    }
    assert!(seen.contains(&"message.updated".to_owned()), "{seen:?}");
    let response = agent.response(prompt).await;
    assert_eq!(response["result"]["stopReason"], "end_turn");
}

#[tokio::test]
async fn a_revert_made_by_the_server_holds_in_the_editors_process() {
    let (mock, env, mut agent, session) = crate::support::start("openai").await;
    crate::support::write_turn(&mock, &mut agent, &session, "one", "a.txt").await;
    crate::support::write_turn(&mock, &mut agent, &session, "two", "b.txt").await;
    let server = serve(&env, &[]).await;
    let (_, messages) = get(&format!("{}/session/{session}/message", server.url)).await;
    let second = messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["info"]["role"] == "user")
        .nth(1)
        .unwrap()["info"]["id"]
        .clone();
    let (status, _) = post(
        &format!("{}/session/{session}/revert", server.url),
        json!({"messageID": second}),
    )
    .await;
    assert_eq!(status, 200);
    assert!(!env.project.join("b.txt").exists());
    // The editor's process had the session open with both turns; its next prompt sees the
    // revert, and makes it permanent.
    mock.push(openai_text(&["three it is"], "stop"));
    agent.prompt(&session, "three").await;
    let last = mock.requests().last().unwrap().body.clone();
    let users: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["one", "three"]);
    let (_, after) = get(&format!("{}/session/{session}", server.url)).await;
    assert!(after.get("revert").is_none(), "{after}");
}

#[tokio::test]
async fn beyond_loopback_a_chosen_token_is_required_and_checked() {
    let env = TestEnv::new();
    let mut command = serve_command(&env, "0.0.0.0:0", &[]);
    command.env_remove("TANDEM_SERVER_TOKEN");
    let refused = command.output().await.unwrap();
    assert!(!refused.status.success());
    assert!(refused.stdout.is_empty(), "no address announced");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("without a bearer token"), "{stderr}");

    let server = serve(&env, &[("TANDEM_SERVER_TOKEN", "s3cret")]).await;
    let url = format!("{}/session", server.url);
    assert_eq!(get(&url).await.0, 401);
    let client = tandem::provider::http_client().clone();
    let wrong = client.get(&url).bearer_auth("guess").send().await.unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let right = client.get(&url).bearer_auth("s3cret").send().await.unwrap();
    assert_eq!(right.status().as_u16(), 200);
    let rpc = client
        .post(&server.url)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "session.list", "params": {}}))
        .send()
        .await
        .unwrap();
    assert_eq!(rpc.status().as_u16(), 401, "JSON-RPC is guarded too");
    let ws = WsClientBuilder::default()
        .set_headers(headers())
        .build(server.url.replace("http://", "ws://"))
        .await;
    assert!(ws.is_err(), "and WebSocket");
}

#[tokio::test]
async fn on_loopback_too_a_generated_token_host_and_origin_are_checked() {
    let env = TestEnv::new();
    let mut command = serve_command(&env, "127.0.0.1:0", &[]);
    command.env_remove("TANDEM_SERVER_TOKEN");
    let mut child = command.spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = out.next_line().await.unwrap().unwrap();
    let said = loop {
        let line = err.next_line().await.unwrap().expect("the token is told");
        if let Some(rest) = line.split("Bearer ").nth(1) {
            break rest.split('`').next().unwrap().to_owned();
        }
    };
    let printed = Command::from(env.command(&["serve", "--print-token"]))
        .env_remove("TANDEM_SERVER_TOKEN")
        .output()
        .await
        .unwrap();
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert_eq!(printed.trim(), said);
    assert_eq!(said.len(), 64);
    let file = env.data.join("server-token");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "readable by the user alone");

    let client = tandem::provider::http_client().clone();
    let list = format!("{url}/session");
    let status =
        async |request: reqwest::RequestBuilder| request.send().await.unwrap().status().as_u16();
    assert_eq!(status(client.get(&list)).await, 401, "no token on loopback");
    assert_eq!(status(client.get(&list).bearer_auth(&said)).await, 200);
    let port = url.rsplit(':').next().unwrap();
    let rebinding = client
        .get(&list)
        .bearer_auth(&said)
        .header("host", format!("attacker.example:{port}"));
    assert_eq!(status(rebinding).await, 403, "a foreign Host");
    let localhost = client
        .get(&list)
        .bearer_auth(&said)
        .header("host", format!("localhost:{port}"));
    assert_eq!(status(localhost).await, 200);
    let page = client
        .get(&list)
        .bearer_auth(&said)
        .header("origin", "https://attacker.example");
    assert_eq!(status(page).await, 403, "a web page's request");
    let rpc = client
        .post(&url)
        .bearer_auth(&said)
        .header("origin", "https://attacker.example")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "session.list", "params": {}}));
    assert_eq!(status(rpc).await, 403);

    let ws_url = url.replace("http://", "ws://");
    let with_query = WsClientBuilder::default()
        .build(format!("{ws_url}/?token={said}"))
        .await
        .expect("the token as a query parameter opens a WebSocket");
    let listed: Value = with_query
        .request("session.list", rpc_params![json!({})])
        .await
        .unwrap();
    assert!(listed["sessions"].is_array());
    assert!(
        WsClientBuilder::default().build(&ws_url).await.is_err(),
        "no token"
    );
    let mut from_page = jsonrpsee::http_client::HeaderMap::new();
    from_page.insert("origin", "https://attacker.example".parse().unwrap());
    assert!(
        WsClientBuilder::default()
            .set_headers(from_page)
            .build(format!("{ws_url}/?token={said}"))
            .await
            .is_err(),
        "a web page's WebSocket"
    );
}
