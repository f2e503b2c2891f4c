//! `tandem serve`: the control server over the same sessions the editors use. One listener
//! carries the seed's REST routes (`rest`) and JSON-RPC over HTTP and WebSocket (`rpc`), both
//! thin over the session service; a bearer token guards every request when one is set.

mod rest;
mod rpc;
mod watch;

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use hyper::StatusCode;
use serde_json::json;

use crate::bus::Bus;
use crate::service::SessionService;
use crate::session::SessionManager;
use crate::store::Store;

/// The address `tandem serve` listens on by default.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:4096";

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Where to listen, ADDR:PORT (port 0 picks a free one). An address other than loopback
    /// needs a bearer token (`TANDEM_SERVER_TOKEN`, or `server.token` in the config).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
}

/// Serves until the process is stopped.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let token = token(&cwd)?;
    if !args.listen.ip().is_loopback() && token.is_none() {
        anyhow::bail!(
            "refusing to listen on {} without a bearer token: set TANDEM_SERVER_TOKEN or \
             `\"server\": {{\"token\": \"...\"}}` in tandem.json, or listen on 127.0.0.1",
            args.listen
        );
    }
    let store = Store::open_in(&crate::paths::data_dir())?;
    let manager = SessionManager::new(Arc::new(store), Bus::new());
    let service = SessionService::new(manager.clone());
    let events = watch::start(manager);
    let methods = rpc::module(service.clone(), events)?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let address = listener.local_addr()?;
    announce(address);
    let (stop, _handle) = jsonrpsee::server::stop_channel();
    let builder = jsonrpsee::server::Server::builder().to_service_builder();
    let token: Option<Arc<str>> = token.map(Into::into);
    loop {
        let (socket, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "cannot accept a connection");
                continue;
            }
        };
        let rpc = builder.clone().build(methods.clone(), stop.clone());
        let (service, token) = (service.clone(), token.clone());
        let handler = tower::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let (mut rpc, service, token) = (rpc.clone(), service.clone(), token.clone());
            async move {
                if !authorised(&request, token.as_deref()) {
                    let body = json!({"error": "missing or wrong bearer token"});
                    return Ok(rest::reply(StatusCode::UNAUTHORIZED, body));
                }
                let websocket = jsonrpsee::server::ws::is_upgrade_request(&request);
                if !websocket && rest::is_route(request.uri().path()) {
                    return Ok(rest::answer(&service, request).await);
                }
                tower::Service::call(&mut rpc, request).await
            }
        });
        let stopped = stop.clone().shutdown();
        tokio::spawn(jsonrpsee::server::serve_with_graceful_shutdown(
            socket, handler, stopped,
        ));
    }
}

/// Prints where the server listens, as the first line on stdout (scripts read it).
#[allow(clippy::print_stdout)]
fn announce(address: SocketAddr) {
    println!("http://{address}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
}

/// The bearer token: `TANDEM_SERVER_TOKEN`, else the config's `server.token`.
fn token(cwd: &std::path::Path) -> anyhow::Result<Option<String>> {
    if let Some(token) = std::env::var("TANDEM_SERVER_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
    {
        return Ok(Some(token));
    }
    let config = crate::config::load(cwd)?;
    Ok(config.config.server.token.filter(|t| !t.is_empty()))
}

/// Whether `request` carries the token (always, when none is set).
fn authorised<B>(request: &hyper::Request<B>, token: Option<&str>) -> bool {
    let Some(token) = token else {
        return true;
    };
    request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|given| constant_time_eq(given.as_bytes(), token.as_bytes()))
}

/// Compares without stopping at the first difference, so timing tells nothing of the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
