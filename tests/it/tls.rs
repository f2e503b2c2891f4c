//! One certificate policy for every HTTPS request Tandem makes: a company CA installed in the
//! system's store (here `SSL_CERT_FILE`, which the store reads) is trusted by model requests
//! and by webfetch alike, and a server signed by an unknown CA is refused with a clear error.
//! The servers are real TLS servers on 127.0.0.1 with certificates made for the test.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::TestEnv;

/// A certificate authority of the test's own, and a server certificate for 127.0.0.1.
struct Pki {
    ca_pem: String,
    server: rustls::ServerConfig,
}

fn pki(name: &str) -> Pki {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, name);
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let mut leaf = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    leaf.subject_alt_names
        .push(SanType::IpAddress([127, 0, 0, 1].into()));
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap();
    let server = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![leaf_cert.der().clone()], key)
    .unwrap();
    Pki {
        ca_pem: ca_cert.pem(),
        server,
    }
}

/// An HTTPS server on 127.0.0.1 answering every request with `content_type` and `body`
/// (HTTP/1.1, one request a connection). Returns its address.
async fn https_server(config: rustls::ServerConfig, content_type: &str, body: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, head, body) = (acceptor.clone(), head.clone(), body.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                // Read the request's head and its body (by content-length), then answer.
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = tls.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request);
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|l| {
                                let (name, value) = l.split_once(':')?;
                                name.eq_ignore_ascii_case("content-length")
                                    .then(|| value.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        if request.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let _ = tls.write_all(head.as_bytes()).await;
                let _ = tls.write_all(body.as_bytes()).await;
                let _ = tls.shutdown().await;
            });
        }
    });
    format!("https://{address}")
}

/// A model's whole answer in Chat Completions' SSE.
fn sse_answer(text: &str) -> String {
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": text}}]});
    let finish = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    format!("data: {chunk}\n\ndata: {finish}\n\ndata: [DONE]\n\n")
}

fn config(base_url: &str) -> serde_json::Value {
    json!({
        "model": "company/model-a",
        "provider": {"company": {
            "api": "openai",
            "options": {"baseURL": base_url, "apiKey": "k"},
            "models": {"model-a": {}}
        }},
        "permission": {"webfetch": "allow"}
    })
}

#[tokio::test]
async fn a_company_ca_in_the_system_store_is_trusted_by_model_requests_and_webfetch() {
    let pki = pki("Test Company CA");
    let model = https_server(
        pki.server.clone(),
        "text/event-stream",
        sse_answer("Over TLS."),
    )
    .await;
    let page = https_server(pki.server, "text/plain", "The intranet page.".into()).await;
    let env = TestEnv::new();
    let ca_file = env.root.path().join("company-ca.pem");
    std::fs::write(&ca_file, &pki.ca_pem).unwrap();
    env.write_project_config(&config(&format!("{model}/v1")));
    let mut agent = env.spawn_with(&[("SSL_CERT_FILE", ca_file.to_str().unwrap())]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent.prompt(&session, "hello").await;
    assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
    assert_eq!(agent.agent_text(), "Over TLS.");

    // webfetch goes through the same client: the same CA is trusted.
    let fetched = tandem_fetch(&env, &ca_file, &format!("{page}/doc")).await;
    assert!(fetched.contains("The intranet page."), "{fetched}");
}

#[tokio::test]
async fn a_server_signed_by_an_unknown_ca_is_refused_with_the_reason() {
    let trusted = pki("Test Company CA");
    let other = pki("Someone Else");
    let model = https_server(other.server, "text/event-stream", sse_answer("no")).await;
    let env = TestEnv::new();
    let ca_file = env.root.path().join("company-ca.pem");
    std::fs::write(&ca_file, &trusted.ca_pem).unwrap();
    let mut config = config(&format!("{model}/v1"));
    config["provider"]["company"]["options"]["maxRetries"] = json!(0);
    env.write_project_config(&config);
    let mut agent = env.spawn_with(&[("SSL_CERT_FILE", ca_file.to_str().unwrap())]);
    agent.initialize().await;
    let session = agent.new_session(&env.project).await;
    let response = agent.prompt(&session, "hello").await;
    let error = response.to_string();
    assert!(
        error.to_lowercase().contains("certificate"),
        "the error names the certificate problem: {error}"
    );
}

/// Runs `tandem run` with a scripted webfetch of `url` and returns what the model was given.
async fn tandem_fetch(env: &TestEnv, ca_file: &std::path::Path, url: &str) -> String {
    let script = env.root.path().join("fetch.json");
    std::fs::write(
        &script,
        json!({"turns": [[{"tool_call": {"name": "webfetch", "input": {"url": url}}}], [{"text": "done"}]]})
            .to_string(),
    )
    .unwrap();
    let config = json!({
        "model": "scripted/demo",
        "provider": {"scripted": {"api": "scripted", "options": {"script": script}}},
        "permission": {"webfetch": "allow"}
    });
    env.write_project_config(&config);
    // Awaited, not blocking: the test's runtime serves the HTTPS page meanwhile.
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_tandem"))
        .args(["run", "--format", "json", "fetch it"])
        .current_dir(&env.project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", env.root.path())
        .env("TANDEM_DATA_DIR", &env.data)
        .env("TANDEM_CONFIG_DIR", &env.config_dir)
        .env("SSL_CERT_FILE", ca_file)
        .output()
        .await
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}
