//! `tandem serve`: the control server over the same sessions the editors use. One listener
//! carries the seed's REST routes (`rest`) and JSON-RPC over HTTP and WebSocket (`rpc`), both
//! thin over the session service; `guard` checks every request's token, Host and Origin.

mod guard;
mod rest;
mod rpc;
mod watch;

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
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
    /// needs a token you chose (`TANDEM_SERVER_TOKEN`, or `server.token` in the config).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Print the bearer token every request must carry, and exit.
    #[arg(long)]
    pub print_token: bool,
}

/// Serves until the process is stopped.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let config = crate::trust::load(&cwd)?.config.server;
    let token = guard::token(config.token.clone())?;
    if args.print_token {
        print_line(token.secret());
        return Ok(());
    }
    if !args.listen.ip().is_loopback() && !matches!(token, guard::Token::Given(_)) {
        anyhow::bail!(
            "refusing to listen on {} without a bearer token you chose: set \
             TANDEM_SERVER_TOKEN or `\"server\": {{\"token\": \"...\"}}` in tandem.json, or \
             listen on 127.0.0.1",
            args.listen
        );
    }
    let origins: Arc<[String]> = config.origins.unwrap_or_default().into();
    let store = Store::open_in(&crate::paths::data_dir())?;
    let manager = SessionManager::new(Arc::new(store), Bus::new());
    let service = SessionService::new(manager.clone());
    let events = watch::start(manager);
    let methods = rpc::module(service.clone(), events)?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let address = listener.local_addr()?;
    print_line(&format!("http://{address}"));
    tracing::info!("serving on http://{address}");
    eprintln!(
        "tandem serve: every request needs the header `Authorization: Bearer {}` \
         (also `tandem serve --print-token`)",
        token.secret()
    );
    let (stop, _handle) = jsonrpsee::server::stop_channel();
    let builder = jsonrpsee::server::Server::builder().to_service_builder();
    let token: Arc<str> = token.secret().into();
    loop {
        let (socket, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "cannot accept a connection");
                continue;
            }
        };
        let rpc = builder.clone().build(methods.clone(), stop.clone());
        let (service, token, origins) = (service.clone(), token.clone(), origins.clone());
        let handler = tower::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let (mut rpc, service) = (rpc.clone(), service.clone());
            let refused = guard::refusal(&request, &token, address, &origins);
            async move {
                if let Some((status, why)) = refused {
                    return Ok(rest::reply(status, json!({"error": why})));
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

/// Prints one line on stdout (the address, first, which scripts read; or the token).
#[allow(clippy::print_stdout)]
fn print_line(line: &str) {
    println!("{line}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
}
